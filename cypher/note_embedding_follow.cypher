// Give the notes of chunks just embedded (a retry, a re-embedding) their note vector again:
// the sum of their chunks' vectors, as note_embedding_set.cypher computes it.
// Parameters: $ids (list<str>, chunk ids)
// Returns: updated (int, notes given a vector)
MATCH (c:Chunk) WHERE c.id IN $ids AND c.embedding IS NOT NULL
MATCH (n:Note)-[:HAS_CHUNK]->(c)
// Mid re-embedding a note's other chunks may still hold the old model's vectors: only those
// of the size just written are summed.
WITH n, max(size(c.embedding)) AS dimension
CALL (n, dimension) {
  MATCH (n)-[:HAS_CHUNK]->(x:Chunk)
  WHERE size(x.embedding) = dimension
  RETURN collect(x.embedding) AS vectors
}
CALL db.create.setNodeVectorProperty(
  n, 'embedding',
  [i IN range(0, dimension - 1) | reduce(s = 0.0, v IN vectors | s + v[i])])
RETURN count(n) AS updated
