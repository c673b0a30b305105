// Notes other than $exclude whose text could mention one of $keys (their chunks' word text
// holds the key; the text index on Chunk.mtext answers CONTAINS), with those notes' chunks.
// Parameters: $vault (str), $keys (list<str>, mention keys), $exclude (str note path, or null)
// Returns: path (str), chunks (list of maps: id, text, line_map), in chunk order
UNWIND $keys AS key
MATCH (c:Chunk) WHERE c.mtext CONTAINS ' ' + key + ' ' AND c.vault = $vault
WITH DISTINCT c.note_path AS path WHERE path <> coalesce($exclude, '')
MATCH (:Note {vault: $vault, path: path})-[:HAS_CHUNK]->(c:Chunk)
WITH path, c ORDER BY c.ord
RETURN path, collect(c {.id, .text, .line_map}) AS chunks
ORDER BY path
