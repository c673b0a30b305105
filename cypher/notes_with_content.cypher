// The notes of a vault holding any of the given contents: where a note new to the graph may
// have moved from (ingest/moved.py). No index on the hash: read only for the notes new to
// the graph a watcher writes, one pass over the vault's notes by the note_key index.
// Parameters: $vault (str), $hashes (list<str>, content hashes)
// Returns: path (str), content_hash (str)
MATCH (n:Note {vault: $vault})
WHERE n.path IS NOT NULL AND n.content_hash IN $hashes
RETURN n.path AS path, n.content_hash AS content_hash
ORDER BY path
