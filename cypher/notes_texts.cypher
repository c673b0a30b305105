// The chunk texts of the given notes, in chunk order: what a note gone from the folder is
// compared with a new note of its file name by when none of its chunks is kept unchanged
// (ingest/move_pairs.py). Read for those few notes alone: notes_state, which every write
// reads, carries no text.
// Parameters: $vault (str), $paths (list<str>, vault-relative)
// Returns: path (str), texts (list<str>: its chunks' texts in chunk order; a note the graph
//          does not hold has no row)
// Planned once per server: every node it reads is found by a unique key or by expanding
// from one, so no plan is better on a larger graph.
CYPHER replan=skip
UNWIND $paths AS path
MATCH (n:Note {vault: $vault, path: path})
OPTIONAL MATCH (n)-[:HAS_CHUNK]->(c:Chunk)
WITH path, c ORDER BY c.ord
RETURN path, collect(c.text) AS texts
