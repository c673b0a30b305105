// The notes a path that names none may have meant, for the not-found message of a note read:
// those whose file stem, title or an alias is the path's last part without .md, case-folded
// (Note.fnames, as notes_search.cypher compares names; a note written before they were kept is
// compared lower-cased). The one at the path in other letter case comes first. Placeholders of
// links are no note to read.
// Parameters: $vault (str), $name (str, case-folded (text/keys.py folded)),
//             $lpath (str, the path as links are matched: text/keys.py link_key), $limit (int)
// Returns: path (str); at most $limit rows
MATCH (n:Note {vault: $vault})
WHERE n.path IS NOT NULL AND n.content_hash IS NOT NULL
  AND $name IN coalesce(n.fnames, [a IN [n.stem, n.title] + coalesce(n.aliases, []) |
                                   replace(replace(toLower(a), 'ß', 'ss'), 'ς', 'σ')])
RETURN n.path AS path
ORDER BY CASE WHEN n.lpath = $lpath THEN 0 ELSE 1 END, path
LIMIT $limit
