// The sections of a vault's notes (note, title, chunk heading path), for the evaluation to
// check that every gold title or section of its questions exists in the graph.
// Parameters: $vault (str)
// Returns: path (str), title (str), heading_path (str, "" before the first heading)
MATCH (n:Note {vault: $vault})-[:HAS_CHUNK]->(c:Chunk) WHERE n.path IS NOT NULL
RETURN DISTINCT n.path AS path, n.title AS title, coalesce(c.heading_path, '') AS heading_path
