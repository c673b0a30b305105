// How many chunks of the vault pass the note filters, by filter_chunks.cypher's rule: a search
// that has found them all asks its index for no more (retrieve/search.py).
// Parameters: $vault (str), $folder (str prefix, NFC, or null: compared with the path composed, as a
//             macOS folder name may be stored decomposed), $tags (list<str>, lower case, all
//             required; a tag also matches its nested tags), $date_from, $date_to (ISO date
//             str or null)
// Returns: chunks (int)
MATCH (n:Note {vault: $vault})
WHERE n.path IS NOT NULL AND ($folder IS NULL OR normalize(n.path) STARTS WITH $folder)
  AND all(t IN $tags WHERE any(x IN coalesce(n.tags, []) WHERE toLower(x) = t
                                                          OR toLower(x) STARTS WITH t + '/'))
  AND (($date_from IS NULL AND $date_to IS NULL)
       OR any(d IN coalesce(n.dates, []) WHERE ($date_from IS NULL OR d >= $date_from)
                                          AND ($date_to IS NULL OR d <= $date_to)))
RETURN sum(count { (n)-[:HAS_CHUNK]->(:Chunk) }) AS chunks
