// Candidate chunks kept when their note passes the filters, each with its note (to place the
// chunk beside its note in PageRank's graph). Only ids come back: the text and place of the
// few hits kept are read afterwards (chunks_cited.cypher), not of every candidate.
// Parameters: $ids (list<str>, chunk ids), $vault (str), $folder (str prefix, NFC, or null: compared with the path composed, as a
//             macOS folder name may be stored decomposed), $tags
//             (list<str>, lower case, all required; a tag also matches its nested tags),
//             $date_from, $date_to (ISO date str or null: the note has a date in the range)
// Returns: one row: ids (list<str>, the chunks kept), notes (list<str>, the element id of each
//          one's note, in the same order)
UNWIND $ids AS id
MATCH (n:Note {vault: $vault})-[:HAS_CHUNK]->(c:Chunk {id: id})
WHERE ($folder IS NULL OR normalize(n.path) STARTS WITH $folder)
  AND all(t IN $tags WHERE any(x IN coalesce(n.tags, []) WHERE toLower(x) = t
                                                          OR toLower(x) STARTS WITH t + '/'))
  AND (($date_from IS NULL AND $date_to IS NULL)
       OR any(d IN coalesce(n.dates, []) WHERE ($date_from IS NULL OR d >= $date_from)
                                          AND ($date_to IS NULL OR d <= $date_to)))
RETURN collect(id) AS ids, collect(elementId(n)) AS notes
