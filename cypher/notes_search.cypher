// Notes found by name (file stem, title or alias containing the text, case-insensitive), tag
// (a tag also matches its nested tags) and folder; every given criterion must hold.
// Parameters: $vault (str), $text (str, lower case, or null), $tag (str, lower case, or null),
//             $folder (str prefix, NFC, or null: compared with the path composed, as a
//             macOS folder name may be stored decomposed), $limit (int)
// Returns: path, title, aliases (list<str>), tags (list<str>), chunks (int)
MATCH (n:Note {vault: $vault})
WHERE n.path IS NOT NULL AND ($folder IS NULL OR normalize(n.path) STARTS WITH $folder)
  AND ($tag IS NULL OR any(x IN coalesce(n.tags, []) WHERE toLower(x) = $tag
                                                       OR toLower(x) STARTS WITH $tag + '/'))
  AND ($text IS NULL OR toLower(n.stem) CONTAINS $text OR toLower(n.title) CONTAINS $text
       OR any(a IN coalesce(n.aliases, []) WHERE toLower(a) CONTAINS $text))
RETURN n.path AS path, n.title AS title, coalesce(n.aliases, []) AS aliases,
       coalesce(n.tags, []) AS tags, COUNT { (n)-[:HAS_CHUNK]->() } AS chunks
ORDER BY n.path
LIMIT $limit
