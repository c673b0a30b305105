// Notes outside $exclude whose mentions may change with $keys: they hold a mention by a key (the
// relationship index on MENTIONS.target), or their text holds one of $named, the keys some note
// bears after the change (a phrase query on the whitespace full-text index chunk_words over
// Chunk.mtext: a key's words in a row; keys are \w+ words joined by single spaces, so the
// quoted key needs no escaping) — with those notes' chunks. A key only lost (its note deleted,
// renamed or retitled) is not searched in text: only the mentions made by it can change.
// Parameters: $vault (str), $keys (list<str>, mention keys), $named (list<str>, those of $keys
//             some note bears now), $exclude (list<str>, note paths left alone: written with
//             the current names already)
// Returns: path (str), chunks (list of maps: id, text, line_map, fence; in chunk order)
CALL () {
  UNWIND $named AS key
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
