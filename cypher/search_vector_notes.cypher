// Dense retrieval by chunk and note: the chunks nearest a query embedding (the chunk index),
// each with the score of its note when that note is among the $notes nearest by note vector
// (Note.embedding, the mean of its chunks' vectors: note_embedding_set.cypher), and the
// lowest of those notes' scores, which bounds every other note's from above. A note's vector
// says what the note as a whole is about, which a section's own vector may not (a paraphrase
// of the note's subject). Both indexes answer across every vault, so the caller asks again
// with a larger $k while the chunk page came back full but held fewer than it needs of this
// vault's chunks. (Another vault's notes may take places among the $notes the note index
// gives: fewer of this vault's notes are then scored, and the rest count at the floor.)
// Parameters: $vault (str), $embedding (list<float>), $k (int, chunks asked of the index),
//             $notes (int, notes asked of the note index)
// Returns: one row: returned (int, chunk candidates the index gave, any vault), floor (float
//          or null: the lowest score of this vault's notes the note index gave; null: none),
//          hits (list of maps id (a chunk id), score (float, its own (1 + cosine) / 2), note
//          (float, its note's; absent (null) when the note is not among the nearest), best
//          own score first, this vault's only)
CALL () {
  CALL db.index.vector.queryNodes('note_embedding', $notes, $embedding) YIELD node, score
  WITH node, score WHERE node.vault = $vault
  RETURN collect(elementId(node)) AS near, collect(score) AS scores
}
CALL () {
  CALL db.index.vector.queryNodes('chunk_embedding', $k, $embedding) YIELD node, score
  RETURN collect({chunk: node, score: score}) AS found
}
CALL (near, scores, found) {
  UNWIND found AS f
  WITH f.chunk AS c, f.score AS score WHERE c.vault = $vault
  MATCH (n:Note)-[:HAS_CHUNK]->(c)
  // The note's score by its place among the nearest (plain Cypher: no APOC needed).
  WITH c, score, [i IN range(0, size(near) - 1) WHERE near[i] = elementId(n) | scores[i]][0]
       AS note
  ORDER BY score DESC
  RETURN collect({id: c.id, score: score, note: note}) AS hits
}
RETURN size(found) AS returned,
       CASE WHEN size(scores) = 0 THEN null ELSE scores[size(scores) - 1] END AS floor, hits
