// The evidence retrieval shows, in one round trip: the kept hits' text and place (for citing)
// and the facts asserted in them, with provenance (the facts beside the evidence). A chunk's
// facts start at its note, or for model triples at an entity the chunk names. A note's facts
// of no chunk (its frontmatter: properties, aliases, tags, links) come with its hits, once, at
// its best hit's rank: no chunk holds their text. A link to a missing note is shown as the
// chunk writes it.
// Parameters: $ids (list<str>, chunk ids), $extractors (list<str> allowed, or null for all),
//             $limit (int, facts)
// Returns: one row: chunks (list of maps id, path, title, aliases, heading_path, line_start,
//          line_end, text; aliases: the note's, [] for none), facts (list of maps subject,
//          predicate, object, source, extractor, confidence, line, chunk_id; by source, line, predicate; at most $limit, those of
//          the best-ranked $ids first)
CALL () {
  UNWIND $ids AS id
  MATCH (n:Note)-[:HAS_CHUNK]->(c:Chunk {id: id})
  RETURN collect({id: id, path: n.path, title: n.title, aliases: coalesce(n.aliases, []),
                  heading_path: c.heading_path, line_start: c.line_start,
                  line_end: c.line_end, text: c.text}) AS chunks
}
CALL () {
  UNWIND range(0, size($ids) - 1) AS rank
  WITH rank, $ids[rank] AS id
  MATCH (n:Note)-[:HAS_CHUNK]->(c:Chunk {id: id})
  CALL (n, c, id) {
    MATCH (n)-[r]->(o) WHERE r.chunk_id = id RETURN n AS s, r, o
    UNION
    MATCH (c)-[:HAS_ENTITY]->(s:Entity)-[r]->(o) WHERE r.chunk_id = id RETURN s, r, o
    UNION
    MATCH (n)-[r]->(o) WHERE r.chunk_id IS NULL AND r.source = n.path RETURN n AS s, r, o
  }
  WITH rank, s, r, o WHERE r.source IS NOT NULL
    AND ($extractors IS NULL OR r.extractor IN $extractors)
  WITH s, r, o, min(rank) AS rank
  WITH coalesce(s.title, s.name, s.key) AS subject, coalesce(r.predicate, type(r)) AS predicate,
       CASE WHEN o:Unresolved THEN coalesce(r.target_text, o.name)
            ELSE coalesce(o.title, o.name, o.key) END AS object, r.source AS source,
       r.extractor AS extractor, r.confidence AS confidence, r.line AS line,
       r.chunk_id AS chunk_id, rank
  // The best hits' facts first when there are more than $limit (a hit's own before its
  // note's frontmatter, which may list many tags and links), then shown by note and line.
  ORDER BY rank, chunk_id IS NULL, line, predicate
  LIMIT $limit
  WITH subject, predicate, object, source, extractor, confidence, line, chunk_id
  ORDER BY source, line, predicate
  RETURN collect({subject: subject, predicate: predicate, object: object, source: source,
                  extractor: extractor, confidence: confidence, line: line,
                  chunk_id: chunk_id}) AS facts
}
RETURN chunks, facts
