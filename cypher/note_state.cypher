// What the graph holds for one note: its content hash and its chunks (without embeddings).
// Parameters: $vault (str), $path (str, vault-relative)
// Returns: content_hash (str or null when the note is unknown), facts_version (int or null:
//          the FACTS_VERSION its facts were derived under), chunks (list of maps: id, hash,
//          extraction, extraction_model, extraction_state, extraction_error, has_embedding)
OPTIONAL MATCH (n:Note {vault: $vault, path: $path})
OPTIONAL MATCH (n)-[:HAS_CHUNK]->(c:Chunk)
WITH n, c ORDER BY c.ord
RETURN n.content_hash AS content_hash, n.facts_version AS facts_version,
       [x IN collect(c) | x {.id, .hash, .extraction, .extraction_model, .extraction_state,
                             .extraction_error, has_embedding: x.embedding IS NOT NULL}] AS chunks
