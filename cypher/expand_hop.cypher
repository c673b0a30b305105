// One hop of the graph walk: the facts touching each frontier node, in either direction, to
// notes and entities that are not hubs. Facts only (they carry `source`); derived similarity
// edges are walked by entity_similar.cypher.
// Parameters: $ids (list<str>, element ids of notes/entities), $extractors (list<str> allowed,
//             or null for all), $per_node (int, facts kept per node), $max_degree (int, nodes
//             with more relationships are neither entered nor left), $max_mentioned_by (int
//             or null: a text mention of a note that more notes than this mention is not
//             followed, since a name most notes write out, such as "api", links nothing)
// Returns: from (element id), to (element id), to_name (str: note:<path> | entity:<key>),
//          type (str), outgoing (bool, from → to), source, extractor, confidence, line,
//          chunk_id, predicate (the wording, else the type), subject, object (display names)
UNWIND $ids AS id
MATCH (x) WHERE elementId(x) = id AND COUNT { (x)--() } <= $max_degree
CALL (x) {
  MATCH (x)-[r]-(y)
  WHERE r.source IS NOT NULL AND (y:Note OR y:Entity)
    AND ($extractors IS NULL OR r.extractor IN $extractors)
    AND COUNT { (y)--() } <= $max_degree
  WITH r, y, endNode(r) AS named
  WHERE $max_mentioned_by IS NULL OR r.extractor <> 'mention'
    OR COUNT { MATCH (z:Note)-[m:MENTIONS]->(named) WHERE m.extractor = 'mention'
               RETURN DISTINCT z } <= $max_mentioned_by
  WITH r, y ORDER BY r.source, r.line, elementId(y)
  LIMIT $per_node
  RETURN r, y
}
WITH x, r, y, startNode(r) AS s, endNode(r) AS o
RETURN elementId(x) AS from, elementId(y) AS to,
       CASE WHEN y:Note THEN 'note:' + y.path ELSE 'entity:' + y.key END AS to_name,
       type(r) AS type, s = x AS outgoing, r.source AS source, r.extractor AS extractor,
       r.confidence AS confidence, r.line AS line, r.chunk_id AS chunk_id,
       coalesce(r.predicate, type(r)) AS predicate,
       coalesce(s.title, s.name, s.key) AS subject, coalesce(o.title, o.name, o.key) AS object
