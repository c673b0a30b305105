// Write notes' mentions of other notes: one MENTIONS fact per (chunk, note named). A note
// named but not written yet (later in the same sync) gets a placeholder its write fills.
// Keeps each target's count of the notes that mention it (Note.mentioned_by, which the walk
// reads; facts_delete and mentions_delete keep it too) by what changed, not by counting its
// mentions again: a note that mentions a popular note would otherwise pay for every other
// note that mentions it. A (note, target) pair counts once, whatever its chunks, and only if
// the note did not mention the target already (one writer per vault, by its lease, writes a
// note's mentions). The target is locked (a property set and removed) before its count is
// read, so a change to it that another transaction commits meanwhile is not lost.
// Parameters: $vault (str), $facts (list of maps: target_path, props (map of relationship
//             properties: source = the mentioning note's path, chunk_id, line,
//             extractor = 'mention', model, confidence, predicate, target = mention key,
//             subject))
// Returns: written (int)
// Planned once per server: every node it reads is found by a unique key or by expanding
// from one, so no plan is better on a larger graph; not planned again when the statistics
// catch up after a bulk write (the first edit after a sync would pay for it).
CYPHER replan=skip
UNWIND $facts AS f
WITH f.props.source AS source, f.target_path AS target_path, collect(f) AS pair
MATCH (n:Note {vault: $vault, path: source})
MERGE (m:Note {vault: $vault, path: target_path})
WITH n, m, pair,
     EXISTS { MATCH (n)-[r:MENTIONS]->(m) WHERE r.extractor = 'mention' } AS counted
CALL (n, m, pair) {
  UNWIND pair AS f
  CREATE (n)-[r:MENTIONS]->(m)
  SET r = f.props, r.recorded_at = datetime()
  RETURN count(r) AS created
}
WITH m, sum(created) AS created, sum(CASE WHEN counted THEN 0 ELSE 1 END) AS added
CALL (m, added) {
  WITH m, added WHERE added > 0
  SET m._lock = true
  WITH m, added
  // A note never counted (a graph written before the count was kept) is counted whole.
  SET m.mentioned_by = CASE WHEN m.mentioned_by IS NULL
                            THEN COUNT { MATCH (x:Note)-[r:MENTIONS]->(m)
                                         WHERE r.extractor = 'mention' RETURN DISTINCT x }
                            ELSE m.mentioned_by + added END
  REMOVE m._lock
}
RETURN sum(created) AS written
