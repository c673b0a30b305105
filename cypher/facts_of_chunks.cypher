// Facts asserted in the given chunks, with provenance (the facts beside the evidence). A
// chunk's facts start at its note, or for model triples at an entity the chunk names. A link
// to a missing note is shown as the chunk writes it.
// Parameters: $ids (list<str>, chunk ids), $extractors (list<str> allowed, or null for all),
//             $limit (int)
// Returns: subject, predicate, object, source, extractor, confidence, line, chunk_id
UNWIND $ids AS id
MATCH (n:Note)-[:HAS_CHUNK]->(c:Chunk {id: id})
CALL (n, c, id) {
  MATCH (n)-[r]->(o) WHERE r.chunk_id = id RETURN n AS s, r, o
  UNION
  MATCH (c)-[:HAS_ENTITY]->(s:Entity)-[r]->(o) WHERE r.chunk_id = id RETURN s, r, o
}
WITH s, r, o WHERE r.source IS NOT NULL
  AND ($extractors IS NULL OR r.extractor IN $extractors)
RETURN coalesce(s.title, s.name, s.key) AS subject, coalesce(r.predicate, type(r)) AS predicate,
       CASE WHEN o:Unresolved THEN coalesce(r.target_text, o.name)
            ELSE coalesce(o.title, o.name, o.key) END AS object, r.source AS source,
       r.extractor AS extractor, r.confidence AS confidence, r.line AS line,
       r.chunk_id AS chunk_id
ORDER BY source, line, predicate
LIMIT $limit
