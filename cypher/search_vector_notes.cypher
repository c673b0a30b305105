// The note side of dense retrieval: the vault's notes nearest a query embedding by their note
// vector (Note.embedding, the mean of their chunks' vectors: note_embedding_set.cypher), with
// every chunk of theirs, and the chunks the chunk index found ($ids), each with its own score
// and its note's. A note's vector says what the note as a whole is about, which a section's
// own vector may not (a paraphrase of the note's subject). The note index answers across every
// vault, so the caller asks again with a larger $k while the page came back full but held
// fewer than it needs of this vault's notes.
// Parameters: $vault (str), $embedding (list<float>), $k (int, notes asked of the index),
//             $ids (list<str>, chunk ids of this vault found by the chunk index)
// Returns: one row: returned (int, notes the index gave, any vault), notes (int, this vault's
//          among them), hits (list of maps id (a chunk id), score (float, the chunk's own
//          (1 + cosine) / 2), note (float, its note's; absent (null) when the note has no
//          vector))
CALL db.index.vector.queryNodes('note_embedding', $k, $embedding) YIELD node, score
WITH collect({note: node, score: score}) AS found
WITH found, [f IN found WHERE f.note.vault = $vault] AS own
CALL (own) {
  CALL (own) {
    UNWIND own AS f
    WITH f.note AS n, f.score AS note
    MATCH (n)-[:HAS_CHUNK]->(c:Chunk)
    WHERE c.embedding IS NOT NULL
    RETURN c, note
    UNION
    MATCH (c:Chunk) WHERE c.id IN $ids AND c.embedding IS NOT NULL
    MATCH (n:Note)-[:HAS_CHUNK]->(c)
    RETURN c, CASE WHEN n.embedding IS NULL THEN null
                   ELSE vector.similarity.cosine(n.embedding, $embedding) END AS note
  }
  WITH c, max(note) AS note
  RETURN collect({id: c.id, score: vector.similarity.cosine(c.embedding, $embedding),
                  note: note}) AS hits
}
RETURN size(found) AS returned, size(own) AS notes, hits
