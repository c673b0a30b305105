// Candidate chunks with their note, kept only when the note passes the filters (for citing,
// and to place each chunk beside its note in PageRank's graph), each with the facts it asserts
// (the facts beside the evidence: the caller keeps those of the chunks it ranks best, so one
// round trip serves both). A chunk's facts start at its note, or for model triples at an
// entity the chunk names; a link to a missing note is shown as the chunk writes it.
// Parameters: $ids (list<str>, chunk ids), $vault (str), $folder (str prefix or null), $tags
//             (list<str>, lower case, all required; a tag also matches its nested tags),
//             $date_from, $date_to (ISO date str or null: the note has a date in the range),
//             $extractors (list<str> allowed, or null for all), $limit (int, facts per chunk)
// Returns: id, note (element id), path, title, heading_path, line_start, line_end, text,
//          facts (list of maps subject, predicate, object, source, extractor, confidence,
//          line, chunk_id; ordered by source, line, predicate)
UNWIND $ids AS id
MATCH (n:Note {vault: $vault})-[:HAS_CHUNK]->(c:Chunk {id: id})
WHERE ($folder IS NULL OR n.path STARTS WITH $folder)
  AND all(t IN $tags WHERE any(x IN coalesce(n.tags, []) WHERE toLower(x) = t
                                                          OR toLower(x) STARTS WITH t + '/'))
  AND (($date_from IS NULL AND $date_to IS NULL)
       OR any(d IN coalesce(n.dates, []) WHERE ($date_from IS NULL OR d >= $date_from)
                                          AND ($date_to IS NULL OR d <= $date_to)))
CALL (n, c, id) {
  CALL (n, c, id) {
    MATCH (n)-[r]->(o) WHERE r.chunk_id = id RETURN n AS s, r, o
    UNION
    MATCH (c)-[:HAS_ENTITY]->(s:Entity)-[r]->(o) WHERE r.chunk_id = id RETURN s, r, o
  }
  WITH s, r, o WHERE r.source IS NOT NULL
    AND ($extractors IS NULL OR r.extractor IN $extractors)
  WITH s, r, o ORDER BY r.source, r.line, coalesce(r.predicate, type(r))
  LIMIT $limit
  RETURN collect({
    subject: coalesce(s.title, s.name, s.key), predicate: coalesce(r.predicate, type(r)),
    object: CASE WHEN o:Unresolved THEN coalesce(r.target_text, o.name)
                 ELSE coalesce(o.title, o.name, o.key) END,
    source: r.source, extractor: r.extractor, confidence: r.confidence, line: r.line,
    chunk_id: r.chunk_id}) AS facts
}
RETURN c.id AS id, elementId(n) AS note, n.path AS path, n.title AS title,
       c.heading_path AS heading_path, c.line_start AS line_start, c.line_end AS line_end,
       c.text AS text, facts
