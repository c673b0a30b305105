// Notes the question names: word runs of the question matched against note file stems,
// titles and aliases (the mention keys of mentions.py), with the note's first chunks.
// Set-based: three index seeks over the whole key list.
// Parameters: $vault (str), $keys (list<str>, mention keys of the question's word runs),
//             $chunks (int, chunks per note)
// Returns: key (str), path (str), note (element id), chunk_ids (list<str>, in order)
CALL () {
  MATCH (m:Note {vault: $vault}) WHERE m.mkey IN $keys RETURN m, m.mkey AS key
  UNION
  MATCH (m:Note {vault: $vault}) WHERE m.mtitle IN $keys RETURN m, m.mtitle AS key
  UNION
  MATCH (e:Entity {vault: $vault})<-[a:HAS_ALIAS]-(m:Note)
  WHERE e.mkey IN $keys AND a.source = m.path
  RETURN m, e.mkey AS key
}
CALL (m) {
  MATCH (m)-[:HAS_CHUNK]->(c:Chunk)
  WITH c ORDER BY c.ord LIMIT $chunks
  RETURN collect(c.id) AS chunk_ids
}
RETURN key, m.path AS path, elementId(m) AS note, chunk_ids
ORDER BY size(key) DESC, path
