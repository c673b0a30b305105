// Notes the question names: word runs of the question matched against note file stems,
// titles and aliases (the mention keys of mentions.py), with the note's first chunks.
// Parameters: $vault (str), $keys (list<str>, mention keys of the question's word runs),
//             $chunks (int, chunks per note)
// Returns: key (str), path (str), note (element id), chunk_ids (list<str>, in order)
UNWIND $keys AS key
CALL (key) {
  MATCH (m:Note {vault: $vault, mkey: key}) RETURN m
  UNION
  MATCH (m:Note {vault: $vault, mtitle: key}) RETURN m
  UNION
  MATCH (:Entity {vault: $vault, mkey: key})<-[a:HAS_ALIAS]-(m:Note) WHERE a.source = m.path
  RETURN m
}
CALL (m) {
  MATCH (m)-[:HAS_CHUNK]->(c:Chunk)
  WITH c ORDER BY c.ord LIMIT $chunks
  RETURN collect(c.id) AS chunk_ids
}
RETURN key, m.path AS path, elementId(m) AS note, chunk_ids
ORDER BY size(key) DESC, path
