// A note's revisions at one path, newest first, before a time: what each ingest, rename,
// delete, mention rewrite or extraction changed in the facts it asserts; a rename away from
// the path closes it (kind 'renamed', renamed_to). (retrieve/notes.py follows a rename to the
// path the note had before, from the rename's time back.)
// Parameters: $vault (str), $path (str), $before (datetime or null: all), $limit (int)
// Returns: path (str), at (datetime), kind, old_hash, new_hash, added (list<str>),
//          removed (list<str>), renamed_from (str or null), renamed_to (str or null)
MATCH (v:Revision {vault: $vault, path: $path})
WHERE $before IS NULL OR v.at < $before
RETURN v.path AS path, v.at AS at, v.kind AS kind, v.old_hash AS old_hash,
       v.new_hash AS new_hash, v.added AS added, v.removed AS removed,
       v.renamed_from AS renamed_from, v.renamed_to AS renamed_to
ORDER BY v.at DESC
LIMIT $limit
