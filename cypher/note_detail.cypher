// One note with its chunks and every fact it asserts, with provenance. A link to a note that
// does not exist shows the link as this note writes it, not the shared placeholder's name.
// A link to a section keeps it apart (anchor: "#Budget", "#^b1"; models.link_anchor).
// Parameters: $vault (str), $path (str)
// Returns: note (map), chunks (list of maps), facts (list of maps); no row for an unknown note
MATCH (n:Note {vault: $vault, path: $path})
CALL (n) {
  OPTIONAL MATCH (n)-[:HAS_CHUNK]->(c:Chunk)
  WITH c ORDER BY c.ord
  RETURN collect(c {.id, .ord, .heading_path, .line_start, .line_end, .text, .embedding_state,
                    .extraction_state, .extraction_error}) AS chunks
}
CALL (n) {
  CALL (n) {
    MATCH (n)-[r]->(o) WHERE r.source = $path RETURN n AS s, r, o
    UNION
    MATCH (n)-[:HAS_CHUNK]->(:Chunk)-[:HAS_ENTITY]->(s:Entity)-[r]->(o) WHERE r.source = $path
    RETURN s, r, o
  }
  WITH DISTINCT s, r, o ORDER BY r.line, type(r)
  RETURN collect({
    subject: coalesce(s.path, s.name), predicate: type(r),
    object: CASE WHEN o:Unresolved THEN coalesce(r.target_text, o.name)
                 ELSE coalesce(o.path, o.name) END,
    object_kind: CASE WHEN o:Note THEN 'note' WHEN o:Unresolved THEN 'unresolved'
                      ELSE 'entity' END,
    anchor: CASE WHEN r.heading IS NOT NULL THEN '#' + r.heading
                 WHEN r.block IS NOT NULL THEN '#^' + r.block END,
    wording: r.predicate, source: r.source, chunk_id: r.chunk_id, line: r.line,
    extractor: r.extractor, model: r.model, confidence: r.confidence,
    recorded_at: toString(r.recorded_at)}) AS facts
}
RETURN n {.path, .title, .aliases, .tags, .dates, .content_hash, .frontmatter_error,
          updated_at: toString(n.updated_at)} AS note, chunks, facts
