// Forget the all-zero vectors that versions before embeddings were checked (llm/vectors.py)
// stored from a model's zero answer: no cosine index holds them and vector.similarity.cosine
// refuses them. Their chunks and entities go back to pending, for a retry (the watcher's or
// `knotwork retry`) to embed again; a note's vector, the sum of its chunks', comes back with
// them (note_embedding_follow.cypher, note_embedding_backfill.cypher). Reads every vector, so
// it runs once per graph (graph/zero_vectors.py): up to $limit nodes of each label a run,
// run again while one of the counts comes back as $limit.
// Parameters: $limit (int)
// Returns: chunks (int, vectors forgotten), entities (int, the same), notes (int, the same)
CALL () {
  MATCH (c:Chunk) WHERE c.embedding IS NOT NULL AND none(x IN c.embedding WHERE x <> 0.0)
  WITH c LIMIT $limit
  SET c.embedding_state = 'pending'
  REMOVE c.embedding
  RETURN count(c) AS chunks
}
CALL () {
  MATCH (e:Entity) WHERE e.embedding IS NOT NULL AND none(x IN e.embedding WHERE x <> 0.0)
  WITH e LIMIT $limit
  SET e.embedding_state = 'pending'
  REMOVE e.embedding
  RETURN count(e) AS entities
}
CALL () {
  MATCH (n:Note) WHERE n.embedding IS NOT NULL AND none(x IN n.embedding WHERE x <> 0.0)
  WITH n LIMIT $limit
  REMOVE n.embedding
  RETURN count(n) AS notes
}
RETURN chunks, entities, notes
