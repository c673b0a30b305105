// Notes found by name (file stem, title or alias containing the text, case-insensitive), tag
// (a tag also matches its nested tags) and folder; every given criterion must hold. Names and
// tags are compared case-folded (Note.fnames, Note.ftags: "Größe" is "grösse" and is found by
// "GRÖSSE"); a note written before they were kept is compared lower-cased, its "ß" and final
// "ς" folded, until its next sync rewrites it.
// Parameters: $vault (str), $text (str, case-folded (text/keys.py folded), or null), $tag (str,
//             case-folded, or null), $folder (str prefix, NFC, or null: compared with the path
//             composed, as a macOS folder name may be stored decomposed), $limit (int)
// Returns: path, title, aliases (list<str>), tags (list<str>), chunks (int)
MATCH (n:Note {vault: $vault})
WHERE n.path IS NOT NULL AND ($folder IS NULL OR normalize(n.path) STARTS WITH $folder)
  AND ($tag IS NULL OR any(x IN coalesce(n.ftags, [t IN coalesce(n.tags, []) |
                                                    replace(toLower(t), 'ß', 'ss')])
                           WHERE x = $tag OR x STARTS WITH $tag + '/'))
  AND ($text IS NULL OR any(x IN coalesce(n.fnames,
                                          [a IN [n.stem, n.title] + coalesce(n.aliases, []) |
                                           replace(replace(toLower(a), 'ß', 'ss'), 'ς', 'σ')])
                            WHERE x CONTAINS $text))
RETURN n.path AS path, n.title AS title, coalesce(n.aliases, []) AS aliases,
       coalesce(n.tags, []) AS tags, COUNT { (n)-[:HAS_CHUNK]->() } AS chunks
ORDER BY n.path
LIMIT $limit
