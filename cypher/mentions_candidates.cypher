// Notes outside $exclude whose mentions may change with $keys: their text holds a key (a phrase
// query on the whitespace full-text index chunk_words over Chunk.mtext: a key's words in a row;
// keys are \w+ words joined by single spaces, so the quoted key needs no escaping), or they
// hold a mention of one (the relationship index on MENTIONS.target) — with those notes' chunks.
// Parameters: $vault (str), $keys (list<str>, mention keys), $exclude (list<str>, note paths
//             left alone: written with the current names already)
// Returns: path (str), chunks (list of maps: id, text, line_map, fence), in chunk order
CALL () {
  UNWIND $keys AS key
  CALL db.index.fulltext.queryNodes('chunk_words', '"' + key + '"') YIELD node AS c
  WITH c WHERE c.vault = $vault
  RETURN c.note_path AS path
  UNION
  MATCH (n:Note)-[r:MENTIONS]->() WHERE r.target IN $keys AND n.vault = $vault
  RETURN n.path AS path
}
WITH DISTINCT path WHERE NOT path IN $exclude
MATCH (:Note {vault: $vault, path: path})-[:HAS_CHUNK]->(c:Chunk)
WITH path, c ORDER BY c.ord
RETURN path, collect(c {.id, .text, .line_map, .fence}) AS chunks
ORDER BY path
