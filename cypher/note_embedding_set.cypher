// Give notes their note vector: the sum of their chunks' vectors (under the cosine of the
// note_embedding index, the same as their mean), or none when no chunk of the note has one
// yet. Run after a note's chunks are written or embedded, so the vector always follows them.
// Parameters: $vault (str), $paths (list<str>, note paths)
// Returns: updated (int, notes given a vector), cleared (int, notes left without one)
// Planned once per server: it finds notes by their unique key and expands from them only,
// so no plan is better on a larger graph, and a sync growing the graph does not have it
// planned again on the way (planning it costs more than running a batch of it).
CYPHER replan=skip
UNWIND $paths AS path
MATCH (n:Note {vault: $vault, path: path})
CALL (n) {
  OPTIONAL MATCH (n)-[:HAS_CHUNK]->(c:Chunk)
  WHERE c.embedding IS NOT NULL
  WITH collect(c.embedding) AS held
  RETURN [v IN held WHERE size(v) = size(held[0])] AS vectors  // one model's size only
}
CALL (n, vectors) {
  WITH n, vectors WHERE size(vectors) > 0
  CALL db.create.setNodeVectorProperty(
    n, 'embedding',
    [i IN range(0, size(vectors[0]) - 1) | reduce(s = 0.0, v IN vectors | s + v[i])])
  RETURN 1 AS given
  UNION
  WITH n, vectors WHERE size(vectors) = 0
  REMOVE n.embedding
  RETURN 0 AS given
}
RETURN sum(given) AS updated, count(*) - sum(given) AS cleared
