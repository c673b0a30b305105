// How many chunks and entities hold an all-zero vector (vectors_zero_reset.cypher says where
// they come from and forgets them). Reads every vector: asked only of a graph whose manifest
// predates the check (graph/zero_vectors.py), by `knotwork doctor`, `/health` and the read
// commands.
// Parameters: none
// Returns: chunks (int), entities (int)
CALL () {
  MATCH (c:Chunk) WHERE c.embedding IS NOT NULL AND none(x IN c.embedding WHERE x <> 0.0)
  RETURN count(c) AS chunks
}
CALL () {
  MATCH (e:Entity) WHERE e.embedding IS NOT NULL AND none(x IN e.embedding WHERE x <> 0.0)
  RETURN count(e) AS entities
}
RETURN chunks, entities
