// Delete every mention the given notes assert (before the reverse pass writes them anew), and
// count again the notes that mention each former target (Note.mentioned_by, locked first).
// Parameters: $vault (str), $paths (list<str>, the mentioning notes)
// Returns: path (str, the mentioning note), facts (list of maps: the deleted facts' relation,
//          subject, target, extractor, line, predicate, chunk_id; see facts.fact_key)
UNWIND $paths AS path
MATCH (n:Note {vault: $vault, path: path})-[r:MENTIONS]->(m)
WHERE r.source = path
WITH path, r, m,
     {relation: type(r), subject: r.subject, target: r.target, extractor: r.extractor,
      line: r.line, predicate: r.predicate, chunk_id: r.chunk_id} AS fact
DELETE r
WITH path, collect(fact) AS facts, collect(DISTINCT m) AS targets
CALL (targets) {
  UNWIND targets AS m
  SET m.mentioned_by = coalesce(m.mentioned_by, 0)
  WITH m
  SET m.mentioned_by = COUNT { MATCH (x:Note)-[r:MENTIONS]->(m) WHERE r.extractor = 'mention'
                               RETURN DISTINCT x }
}
RETURN path, facts
