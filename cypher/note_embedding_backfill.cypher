// Give up to $limit notes without a note vector, though some of their chunks have a vector,
// their note vector (the sum of their chunks' vectors, as note_embedding_set.cypher computes
// it): graphs written before notes had vectors get them once, when the schema is applied.
// Parameters: $limit (int)
// Returns: updated (int, notes given a vector; fewer than $limit: none is left)
MATCH (n:Note)
WHERE n.embedding IS NULL AND EXISTS { (n)-[:HAS_CHUNK]->(c:Chunk) WHERE c.embedding IS NOT NULL }
WITH n LIMIT $limit
CALL (n) {
  MATCH (n)-[:HAS_CHUNK]->(x:Chunk)
  WHERE x.embedding IS NOT NULL
  WITH collect(x.embedding) AS held
  RETURN [v IN held WHERE size(v) = size(held[0])] AS vectors  // one model's size only
}
CALL db.create.setNodeVectorProperty(
  n, 'embedding',
  [i IN range(0, size(vectors[0]) - 1) | reduce(s = 0.0, v IN vectors | s + v[i])])
RETURN count(n) AS updated
