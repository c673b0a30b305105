// Create or overwrite the manifest.
// Parameters: $schema_version (int), $embed_model (str), $embed_dimension (int),
//             $knotwork_version (str)
// Returns: manifest (map)
MERGE (m:Manifest {key: 'knotwork'})
ON CREATE SET m.created_at = datetime()
SET m.schema_version = $schema_version,
    m.embed_model = $embed_model,
    m.embed_dimension = $embed_dimension,
    m.knotwork_version = $knotwork_version,
    m.updated_at = datetime()
RETURN properties(m) AS manifest
