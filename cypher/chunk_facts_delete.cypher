// Delete the model facts and entity links of one chunk before its extraction is written.
// Parameters: $id (str)
// Returns: touched (list of element ids of nodes that lost a relationship)
MATCH (c:Chunk {id: $id})
CALL (c) {
  MATCH (c)-[:HAS_ENTITY]->(s:Entity)-[r]->(o) WHERE r.chunk_id = $id AND r.extractor = 'llm'
  WITH DISTINCT r, elementId(s) AS sid, elementId(o) AS oid
  DELETE r RETURN collect(sid) + collect(oid) AS model
}
CALL (c) {
  MATCH (c)-[h:HAS_ENTITY]->(e) WITH h, elementId(e) AS id DELETE h RETURN collect(id) AS linked
}
UNWIND model + linked AS id
RETURN collect(DISTINCT id) AS touched
