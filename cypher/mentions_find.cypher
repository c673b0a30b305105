// Resolve a note's word runs (grams) to the notes they name, by file stem, title or alias;
// the shortest path wins, as for links. A note is never its own mention.
// Parameters: $vault (str), $path (str, the mentioning note), $grams (list of maps: key (a
//             mention key, see mentions.py), chunk_id, line)
// Returns: key (str), chunk_id (str), line (int), target (str, path of the note named)
UNWIND $grams AS g
CALL (g) {
  CALL (g) {
    MATCH (m:Note {vault: $vault, mkey: g.key}) RETURN m
    UNION
    MATCH (m:Note {vault: $vault, mtitle: g.key}) RETURN m
    UNION
    MATCH (:Entity {vault: $vault, mkey: g.key})<-[a:HAS_ALIAS]-(m:Note) WHERE a.source = m.path
    RETURN m
  }
  WITH m WHERE m.path <> $path
  RETURN m ORDER BY size(m.lpath), m.lpath LIMIT 1
}
RETURN g.key AS key, g.chunk_id AS chunk_id, g.line AS line, m.path AS target
