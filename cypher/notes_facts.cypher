// Every fact the given notes assert, as canonical strings (for revisions and verification);
// a note that asserts nothing has no row.
// Parameters: $vault (str), $paths (list<str>)
// Returns: path (str), facts (list<str>: relation|subject|target|extractor|line|predicate|
//          chunk_id, sorted)
UNWIND $paths AS path
MATCH (n:Note {vault: $vault, path: path})
CALL (n, path) {
  MATCH (n)-[r]->() WHERE r.source = path RETURN r
  UNION
  MATCH (n)-[:HAS_CHUNK]->(:Chunk)-[:HAS_ENTITY]->(:Entity)-[r]->() WHERE r.source = path
  RETURN r
}
WITH DISTINCT path, type(r) + '|' + coalesce(r.subject, '') + '|' + r.target + '|'
       + r.extractor + '|' + toString(r.line) + '|' + coalesce(r.predicate, '') + '|'
       + coalesce(r.chunk_id, '') AS fact
ORDER BY fact
RETURN path, collect(fact) AS facts
