// Resolve mention keys (a note's word runs) to the notes they name, by file stem, title or
// alias; the shortest path wins, as for links (case variants: the
// path that sorts first). A note is never its own mention. Set-based:
// three index seeks over the whole key list, not a subquery per key.
// Parameters: $vault (str), $path (str, the mentioning note), $keys (list<str>, distinct
//             mention keys, see mentions.py)
// Returns: key (str), target (str, path of the note named)
CALL () {
  MATCH (m:Note {vault: $vault}) WHERE m.mkey IN $keys RETURN m, m.mkey AS key
  UNION
  MATCH (m:Note {vault: $vault}) WHERE m.mtitle IN $keys RETURN m, m.mtitle AS key
  UNION
  MATCH (e:Entity {vault: $vault})<-[a:HAS_ALIAS]-(m:Note)
  WHERE e.mkey IN $keys AND a.source = m.path
  RETURN m, e.mkey AS key
}
WITH key, m WHERE m.path <> $path
ORDER BY size(m.lpath), m.lpath, m.path
WITH key, collect(m.path)[0] AS target
RETURN key, target
