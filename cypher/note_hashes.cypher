// Path and content hash of every note of a vault (for a sync to find what changed).
// Parameters: $vault (str)
// Returns: path, content_hash
MATCH (n:Note {vault: $vault})
RETURN n.path AS path, n.content_hash AS content_hash
