// Create or overwrite the manifest; its schema version never goes down (a newer Knotwork
// that wrote since it was read keeps its own, graph/schema.py).
// Parameters: $schema_version (int), $embed_model (str),
//             $embed_provider (str: KNOTWORK_EMBED_PROVIDER), $embed_dimension (int),
//             $knotwork_version (str)
// Returns: manifest (map)
MERGE (m:Manifest {key: 'knotwork'})
ON CREATE SET m.created_at = datetime()
SET m.schema_version = CASE WHEN m.schema_version > $schema_version
                             THEN m.schema_version ELSE $schema_version END,
    m.embed_model = $embed_model,
    m.embed_provider = $embed_provider,
    m.embed_dimension = $embed_dimension,
    m.knotwork_version = $knotwork_version,
    m.updated_at = datetime()
RETURN properties(m) AS manifest
