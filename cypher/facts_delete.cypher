// Delete every fact the given notes assert (structural and model-extracted) and their chunks'
// entity links, so the notes can be written anew. Nothing another note asserts is touched.
// Parameters: $vault (str), $paths (list<str>)
// Returns: touched (list of element ids of nodes that lost a relationship: orphan candidates)
UNWIND $paths AS path
MATCH (n:Note {vault: $vault, path: path})
CALL (n, path) {
  MATCH (n)-[r]->(o) WHERE r.source = path
  WITH r, elementId(o) AS id DELETE r RETURN collect(id) AS own
}
CALL (n, path) {
  MATCH (n)-[:HAS_CHUNK]->(:Chunk)-[:HAS_ENTITY]->(s:Entity)-[r]->(o) WHERE r.source = path
  WITH DISTINCT r, elementId(s) AS sid, elementId(o) AS oid
  DELETE r RETURN collect(sid) + collect(oid) AS model
}
CALL (n) {
  MATCH (n)-[:HAS_CHUNK]->(:Chunk)-[h:HAS_ENTITY]->(e)
  WITH h, elementId(e) AS id DELETE h RETURN collect(id) AS mentioned
}
UNWIND own + model + mentioned AS id
RETURN collect(DISTINCT id) AS touched
