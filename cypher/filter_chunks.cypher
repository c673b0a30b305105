// Candidate chunks with their note, kept only when the note passes the filters (for citing,
// and to place each chunk beside its note in PageRank's graph).
// Parameters: $ids (list<str>, chunk ids), $vault (str), $folder (str prefix or null), $tags
//             (list<str>, lower case, all required; a tag also matches its nested tags),
//             $date_from, $date_to (ISO date str or null: the note has a date in the range)
// Returns: id, note (element id), path, title, heading_path, line_start, line_end, text
UNWIND $ids AS id
MATCH (n:Note {vault: $vault})-[:HAS_CHUNK]->(c:Chunk {id: id})
WHERE ($folder IS NULL OR n.path STARTS WITH $folder)
  AND all(t IN $tags WHERE any(x IN coalesce(n.tags, []) WHERE toLower(x) = t
                                                          OR toLower(x) STARTS WITH t + '/'))
  AND (($date_from IS NULL AND $date_to IS NULL)
       OR any(d IN coalesce(n.dates, []) WHERE ($date_from IS NULL OR d >= $date_from)
                                          AND ($date_to IS NULL OR d <= $date_to)))
RETURN c.id AS id, elementId(n) AS note, n.path AS path, n.title AS title, c.heading_path AS heading_path,
       c.line_start AS line_start, c.line_end AS line_end, c.text AS text
