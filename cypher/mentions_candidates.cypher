// Notes outside $exclude whose mentions may change with $keys: they hold a mention by a key (the
// relationship index on MENTIONS.target), or their text holds a key some note bears after the
// change ($found: mentions_text_candidates.cypher, read before the transaction wrote) — with
// those notes' chunks. A key only lost (its note deleted, renamed or retitled) is not searched
// in text: only the mentions made by it can change.
// Parameters: $vault (str), $keys (list<str>, mention keys), $found (list<str>, note paths whose
//             text holds a key some note bears now), $exclude (list<str>, note paths left
//             alone: written with the current names already)
// Returns: path (str), chunks (list of maps: id, text, line_map, fence; in chunk order)
// Planned once per server: it finds mentions by the mention_target index and notes by
// unique key (a seek whatever the statistics), so it is not planned again when they catch up
// after a bulk write (the first delete after a sync would pay for it).
CYPHER replan=skip
CALL () {
  UNWIND $found AS path
  RETURN path
  UNION
  MATCH (n:Note)-[r:MENTIONS]->() WHERE r.target IN $keys AND n.vault = $vault
  RETURN n.path AS path
}
WITH DISTINCT path WHERE NOT path IN $exclude
MATCH (:Note {vault: $vault, path: path})-[:HAS_CHUNK]->(c:Chunk)
WITH path, c ORDER BY c.ord
RETURN path, collect(c {.id, .text, .line_map, .fence}) AS chunks
ORDER BY path
