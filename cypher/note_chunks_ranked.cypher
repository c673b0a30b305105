// The chunks of reached notes, best first by similarity to the question when a vector is
// given (else in note order): a walk that reaches a note cites its most relevant part.
// Parameters: $vault (str), $paths (list<str>), $embedding (list<float> or null),
//             $per_note (int)
// Returns: path (str), note (element id), id (chunk id), score (float, cosine or 0)
UNWIND $paths AS path
MATCH (n:Note {vault: $vault, path: path})
CALL (n) {
  MATCH (n)-[:HAS_CHUNK]->(c:Chunk)
  WITH c, CASE WHEN $embedding IS NULL OR c.embedding IS NULL THEN 0.0
               ELSE vector.similarity.cosine(c.embedding, $embedding) END AS score
  ORDER BY score DESC, c.ord
  LIMIT $per_note
  RETURN c, score
}
RETURN path, elementId(n) AS note, c.id AS id, score
