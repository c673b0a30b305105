// A note's revisions, newest first: what each ingest, rename, delete, mention rewrite or
// extraction changed in the facts it asserts.
// Parameters: $vault (str), $path (str), $limit (int)
// Returns: at (datetime), kind, old_hash, new_hash, added (list<str>), removed (list<str>),
//          renamed_from (str or null)
MATCH (v:Revision {vault: $vault, path: $path})
RETURN v.at AS at, v.kind AS kind, v.old_hash AS old_hash, v.new_hash AS new_hash,
       v.added AS added, v.removed AS removed, v.renamed_from AS renamed_from
ORDER BY v.at DESC
LIMIT $limit
