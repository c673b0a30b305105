// Mark the manifest as re-embedding to a model (before a vector index is dropped), or clear the
// mark (null, once every chunk has the model's vector and the manifest names it): while it is
// there, every command and server refuses the graph as an interrupted re-embedding.
// Parameters: $model (str or null), $dimension (int or null)
// Returns: manifest (map)
MERGE (m:Manifest {key: 'knotwork'})
ON CREATE SET m.created_at = datetime()
SET m.reembedding_model = $model,
    m.reembedding_dimension = $dimension,
    m.updated_at = datetime()
RETURN properties(m) AS manifest
