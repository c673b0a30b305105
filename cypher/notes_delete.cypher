// Delete note nodes and their chunks (their facts are deleted before, incoming links
// re-pointed).
// Parameters: $vault (str), $paths (list<str>)
// Returns: deleted (int)
// Planned once per server: every node it reads is found by a unique key or by expanding
// from one, so no plan is better on a larger graph; not planned again when the statistics
// catch up after a bulk write (the first edit or delete after a sync would pay for it).
CYPHER replan=skip
UNWIND $paths AS path
MATCH (n:Note {vault: $vault, path: path})
OPTIONAL MATCH (n)-[:HAS_CHUNK]->(c:Chunk)
DETACH DELETE c
WITH DISTINCT n
DETACH DELETE n
RETURN count(*) AS deleted
