// Write a note's mentions of other notes: one MENTIONS fact per (chunk, note named).
// Parameters: $vault (str), $path (str, the mentioning note), $facts (list of maps:
//             target_path, props (map of relationship properties: source, chunk_id, line,
//             extractor = 'mention', model, confidence, predicate, target = mention key, subject))
// Returns: written (int)
MATCH (n:Note {vault: $vault, path: $path})
UNWIND $facts AS f
MATCH (m:Note {vault: $vault, path: f.target_path})
CREATE (n)-[r:MENTIONS]->(m)
SET r = f.props, r.recorded_at = datetime()
RETURN count(r) AS written
