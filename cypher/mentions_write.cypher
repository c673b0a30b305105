// Write notes' mentions of other notes: one MENTIONS fact per (chunk, note named). A note
// named but not written yet (later in the same sync) gets a placeholder its write fills.
// Parameters: $vault (str), $facts (list of maps: target_path, props (map of relationship
//             properties: source = the mentioning note's path, chunk_id, line,
//             extractor = 'mention', model, confidence, predicate, target = mention key,
//             subject))
// Returns: written (int)
UNWIND $facts AS f
MATCH (n:Note {vault: $vault, path: f.props.source})
MERGE (m:Note {vault: $vault, path: f.target_path})
CREATE (n)-[r:MENTIONS]->(m)
SET r = f.props, r.recorded_at = datetime()
RETURN count(r) AS written
