// Every fact one note asserts, as canonical strings (for revisions and verification).
// Parameters: $vault (str), $path (str)
// Returns: fact (str: relation|subject|target|extractor|line|predicate|chunk_id)
MATCH (n:Note {vault: $vault, path: $path})
CALL (n) {
  MATCH (n)-[r]->() WHERE r.source = $path RETURN r
  UNION
  MATCH (n)-[:HAS_CHUNK]->(:Chunk)-[:HAS_ENTITY]->(:Entity)-[r]->() WHERE r.source = $path
  RETURN r
}
RETURN DISTINCT type(r) + '|' + coalesce(r.subject, '') + '|' + r.target + '|' + r.extractor
       + '|' + toString(r.line) + '|' + coalesce(r.predicate, '') + '|'
       + coalesce(r.chunk_id, '') AS fact
ORDER BY fact
