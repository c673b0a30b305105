// Notes the question names: word runs of the question matched against note file stems,
// titles, aliases and the other name a title's or file name's parenthesis gives (Note.mparen,
// text/keys.py paren_key; all mention keys of text/keys.py), with how many notes write each name
// out (a name most notes use, such as "api", says little about what the question is about)
// and the note's chunks nearest the question. Loosely too: a note's title without its stop
// words and parenthetical parts (Note.mloose, text/keys.py loose_key) among the question's
// runs of content words, unless another note bears that key exactly ("flip-flop (JK)" is not
// named by "flip-flop" while flip-flop.md is). Set-based: five index seeks over the key lists.
// Parameters: $vault (str), $keys (list<str>, mention keys of the question's word runs),
//             $loose (list<str>, the question's runs of content words: loose_grams),
//             $chunks (int, chunks per note), $embedding (list<float> or null: without it,
//             the note's first chunks; a chunk's vector cosine refuses, all zeros or of
//             another size, scores 0 as walk_scores.cypher says)
// Returns: key (str), path (str), note (element id), chunk_ids (list<str>, best first),
//          lead (str or null: the id of the note's first chunk, its opening; null when the
//          note has no chunk or its first chunk is a bare heading line, "# Alice" before
//          "## Work": then it has no opening),
//          mentioned_by (int, notes whose text names this note: Note.mentioned_by, kept
//          by the writes)
CALL () {
  MATCH (m:Note {vault: $vault}) WHERE m.mkey IN $keys RETURN m, m.mkey AS key
  UNION
  MATCH (m:Note {vault: $vault}) WHERE m.mtitle IN $keys RETURN m, m.mtitle AS key
  UNION
  MATCH (e:Entity {vault: $vault})<-[a:HAS_ALIAS]-(m:Note)
  WHERE e.mkey IN $keys AND a.source = m.path
  RETURN m, e.mkey AS key
  UNION
  MATCH (m:Note {vault: $vault}) WHERE m.mparen IN $keys RETURN m, m.mparen AS key
  UNION
  MATCH (m:Note {vault: $vault}) WHERE m.mloose IN $loose
    AND NOT EXISTS { MATCH (x:Note {vault: $vault, mkey: m.mloose}) WHERE x <> m }
    AND NOT EXISTS { MATCH (x:Note {vault: $vault, mtitle: m.mloose}) WHERE x <> m }
    AND NOT EXISTS { MATCH (x:Note {vault: $vault, mparen: m.mloose}) WHERE x <> m }
  RETURN m, m.mloose AS key
}
CALL (m) {
  MATCH (m)-[:HAS_CHUNK]->(c:Chunk)
  WITH c, CASE WHEN $embedding IS NULL OR c.embedding IS NULL
                    OR size(c.embedding) <> size($embedding)
                    OR none(x IN c.embedding WHERE x <> 0.0) THEN 0.0
               ELSE vector.similarity.cosine(c.embedding, $embedding) END AS score
  ORDER BY score DESC, c.ord LIMIT $chunks
  RETURN collect(c.id) AS chunk_ids
}
CALL (m) {
  MATCH (m)-[:HAS_CHUNK]->(c:Chunk)
  WITH c ORDER BY c.ord
  WITH head(collect(c)) AS first
  RETURN CASE WHEN first IS NULL OR (first.text STARTS WITH '#' AND NOT first.text CONTAINS '\n')
              THEN null ELSE first.id END AS lead
}
RETURN key, m.path AS path, elementId(m) AS note, chunk_ids, lead,
       coalesce(m.mentioned_by, 0) AS mentioned_by
ORDER BY size(key) DESC, path
