// Append one revision record: what an ingest, rename or delete of a note changed.
// Parameters: $vault (str), $path (str), $kind ('upsert' | 'delete' | 'rename'),
//             $old_hash (str or null), $new_hash (str or null), $added (list<str>),
//             $removed (list<str>), $asserted (list<str>, every fact the note asserts now),
//             $renamed_from (str or null)
// Returns: at (datetime)
CREATE (v:Revision {vault: $vault, path: $path, kind: $kind, at: datetime(),
                    old_hash: $old_hash, new_hash: $new_hash, added: $added,
                    removed: $removed, asserted: $asserted, renamed_from: $renamed_from})
RETURN v.at AS at
