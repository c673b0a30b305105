// Delete a note node and its chunks (its facts are deleted before, incoming links re-pointed).
// Parameters: $vault (str), $path (str)
// Returns: deleted (int)
MATCH (n:Note {vault: $vault, path: $path})
OPTIONAL MATCH (n)-[:HAS_CHUNK]->(c:Chunk)
DETACH DELETE c
WITH DISTINCT n
DETACH DELETE n
RETURN count(*) AS deleted
