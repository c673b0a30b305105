// Record what a sync owes the notes it does not write, before its first batch commits, and
// clear it (empty lists) in its last batch: the mention keys whose mentions in other notes it
// rewrites, and the link keys whose links it re-resolves (ingest/sync.py). A sync cut off
// between the two leaves the record, and the next sync pays the debt in its own last batch.
// Parameters: $vault (str), $owed (map: reverse (list<str>, mention keys), links (list<str>,
//             link keys)). One map, so one plan: an empty list and a filled one are two to
//             Neo4j's plan cache, what a map holds is not.
// Returns: owed (int, keys recorded)
// Planned once per server: it reads only the vault's one NameStamp.
CYPHER replan=skip
MERGE (s:NameStamp {vault: $vault})
SET s.owed_reverse = $owed.reverse, s.owed_links = $owed.links
RETURN size($owed.reverse) + size($owed.links) AS owed
