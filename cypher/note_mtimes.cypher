// Every note of a vault with the modification time of the file whose content the graph holds
// (for equality checks: a rename keeps the moved file's mtime).
// Parameters: $vault (str)
// Returns: path (str), mtime (float or null)
MATCH (n:Note {vault: $vault}) WHERE n.path IS NOT NULL
RETURN n.path AS path, n.mtime AS mtime
ORDER BY path
