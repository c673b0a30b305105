// Entities a question or a model keyword names: exact keys, then the full-text index on
// entity names and aliases (Lucene query built from escaped, quoted words).
// Parameters: $vault (str), $keys (list<str>, entity keys), $query (str, Lucene, may be ''),
//             $k (int, full-text candidates)
// Returns: id (element id), name (str: entity:<key>), score (float)
CALL () {
  UNWIND $keys AS key
  MATCH (e:Entity {vault: $vault, key: key})
  RETURN e, 10.0 AS score
  UNION
  CALL db.index.fulltext.queryNodes('entity_names', CASE WHEN $query = '' THEN 'x' ELSE $query END,
                                    {limit: $k}) YIELD node, score
  WITH node, score WHERE $query <> '' AND node:Entity AND node.vault = $vault
  RETURN node AS e, score
}
WITH e, max(score) AS score
RETURN elementId(e) AS id, 'entity:' + e.key AS name, score
ORDER BY score DESC, name
LIMIT $k
