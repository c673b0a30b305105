// Chunks whose text the new embedding model refused alone during `knotwork reembed`
// (graph/schema.py): the old model's vector goes (another size or space, never to be compared
// with the new one's) and the chunk waits for an embedding, stamped with when
// (chunks_refused_stamp.cypher): `knotwork retry` asks it again at once, the watcher's pass
// after the model's back-off. Their notes' vectors are summed again from the chunks holding
// a vector of the new size (note_embedding_follow.cypher), or removed when none does; a
// later page re-embedding a note's other chunks sums them again.
// Parameters: $rows (list of maps: id, embed_hash (of the text that was refused; a chunk
//             written before chunks had a context is matched by its text hash)),
//             $dimension (int, the new model's), $at (int, milliseconds since the epoch)
// Returns: vault (str, '' for a chunk of none), note_path (str or null); a row per chunk
//          set pending
UNWIND $rows AS row
MATCH (c:Chunk {id: row.id})
WHERE coalesce(c.embed_hash, c.hash) = row.embed_hash
SET c.embedding_state = 'pending', c.embedding_refused_at = $at
REMOVE c.embedding
WITH collect(c) AS refused
CALL (refused) {
  UNWIND refused AS c
  MATCH (n:Note)-[:HAS_CHUNK]->(c)
  WITH DISTINCT n
  CALL (n) {
    MATCH (n)-[:HAS_CHUNK]->(x:Chunk)
    WHERE size(x.embedding) = $dimension
    RETURN collect(x.embedding) AS vectors
  }
  REMOVE n.embedding
  WITH n, vectors WHERE size(vectors) > 0
  CALL db.create.setNodeVectorProperty(
    n, 'embedding',
    [i IN range(0, $dimension - 1) | reduce(s = 0.0, v IN vectors | s + v[i])])
  RETURN count(n) AS summed
}
UNWIND refused AS c
RETURN coalesce(c.vault, '') AS vault, c.note_path AS note_path
