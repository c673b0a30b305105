// Delete every mention the given notes assert (before the reverse pass writes them anew); each
// former target is mentioned by one note fewer per note that mentioned it (Note.mentioned_by,
// kept by what changed, the target locked first: as in mentions_write.cypher).
// Parameters: $vault (str), $paths (list<str>, the mentioning notes)
// Returns: path (str, the mentioning note), facts (list of maps: the deleted facts' relation,
//          subject, target, extractor, line, predicate, chunk_id; see facts.fact_key)
// Planned once per server: it finds notes by their unique key and expands from them, so
// no plan is better on a larger graph; planned again when the statistics caught up after a
// bulk write, the first delete after a sync paid for it.
CYPHER replan=skip
UNWIND $paths AS path
MATCH (n:Note {vault: $vault, path: path})-[r:MENTIONS]->(m)
WHERE r.source = path
WITH path, r, m, r.extractor = 'mention' AS mention,
     {relation: type(r), subject: r.subject, target: r.target, extractor: r.extractor,
      line: r.line, predicate: r.predicate, chunk_id: r.chunk_id} AS fact
DELETE r
WITH path, collect(fact) AS facts,
     collect(DISTINCT CASE WHEN mention THEN m END) AS targets
CALL (targets) {
  UNWIND targets AS m
  SET m._lock = true
  WITH m
  // A note never counted (a graph written before the count was kept) is counted whole.
  SET m.mentioned_by = CASE WHEN m.mentioned_by IS NULL
                            THEN COUNT { MATCH (x:Note)-[r:MENTIONS]->(m)
                                         WHERE r.extractor = 'mention' RETURN DISTINCT x }
                            ELSE m.mentioned_by - 1 END
  REMOVE m._lock
}
RETURN path, facts
