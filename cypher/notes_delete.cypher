// Delete note nodes and their chunks (their facts are deleted before, incoming links
// re-pointed).
// Parameters: $vault (str), $paths (list<str>)
// Returns: deleted (int)
UNWIND $paths AS path
MATCH (n:Note {vault: $vault, path: path})
OPTIONAL MATCH (n)-[:HAS_CHUNK]->(c:Chunk)
DETACH DELETE c
WITH DISTINCT n
DETACH DELETE n
RETURN count(*) AS deleted
