// Entities similar to the given ones (SIMILAR_TO, both directions), for the synonym walk.
// Parameters: $ids (list<str>, element ids of entities), $per_node (int)
// Returns: from (element id), to (element id), to_name (str: entity:<key>), cosine (float)
UNWIND $ids AS id
MATCH (e:Entity) WHERE elementId(e) = id
CALL (e) {
  MATCH (e)-[s:SIMILAR_TO]-(o:Entity)
  WITH s, o ORDER BY s.cosine DESC, o.key
  LIMIT $per_node
  RETURN s, o
}
RETURN elementId(e) AS from, elementId(o) AS to, 'entity:' + o.key AS to_name,
       s.cosine AS cosine
