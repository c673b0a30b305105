// The notes of a vault holding any of the given contents, or bearing any of the given file
// names: where a note new to the graph may have moved from, unchanged or edited
// (ingest/moved.py, ingest/move_pairs.py). No index on the hash or the name: read only for
// the notes new to the graph a watcher writes, one pass over the vault's notes.
// Parameters: $vault (str), $hashes (list<str>, content hashes), $names (list<str>, file
//             names composed (NFC) and in lower case, as move_pairs.file_name has them)
// Returns: path (str), content_hash (str)
MATCH (n:Note {vault: $vault})
WHERE n.path IS NOT NULL AND n.content_hash IS NOT NULL
  AND (n.content_hash IN $hashes
       OR toLower(normalize(last(split(n.path, '/')), NFC)) IN $names)
RETURN n.path AS path, n.content_hash AS content_hash
ORDER BY path
