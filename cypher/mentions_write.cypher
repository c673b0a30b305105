// Write notes' mentions of other notes: one MENTIONS fact per (chunk, note named). A note
// named but not written yet (later in the same sync) gets a placeholder its write fills.
// Keeps each target's count of the notes that mention it (Note.mentioned_by, which the walk
// reads; facts_delete and mentions_delete keep it too): the target is locked first, so a
// concurrent writer's mentions are counted once it commits.
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
MATCH (n:Note {vault: $vault, path: f.props.source})
MERGE (m:Note {vault: $vault, path: f.target_path})
CREATE (n)-[r:MENTIONS]->(m)
SET r = f.props, r.recorded_at = datetime()
WITH collect(DISTINCT m) AS targets, count(r) AS written
CALL (targets) {
  UNWIND targets AS m
  SET m.mentioned_by = coalesce(m.mentioned_by, 0)
  WITH m
  SET m.mentioned_by = COUNT { MATCH (x:Note)-[r:MENTIONS]->(m) WHERE r.extractor = 'mention'
                               RETURN DISTINCT x }
}
RETURN written
