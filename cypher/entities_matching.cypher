// Entities a question or a model keyword names: exact keys, name keys (mention keys, for the
// question's own word runs), then the full-text index on entity names and aliases.
// The full-text index answers for notes and every vault's entities too, so it is asked for
// $candidates hits and only then narrowed to this vault's entities and cut to $k.
// Parameters: $vault (str), $keys (list<str>, entity keys), $mkeys (list<str>, mention keys),
//             $query (str, Lucene built from escaped, quoted words; '' for none), $k (int),
//             $candidates (int, hits asked of the full-text index; one, unread, for no $query)
// Returns: id (element id), name (str: entity:<key>), score (float)
CALL () {
  MATCH (e:Entity {vault: $vault}) WHERE e.key IN $keys
  RETURN e, 10.0 AS score
  UNION
  MATCH (e:Entity {vault: $vault}) WHERE e.mkey IN $mkeys
  RETURN e, 5.0 AS score
  UNION
  CALL db.index.fulltext.queryNodes('entity_names', CASE WHEN $query = '' THEN 'x' ELSE $query END,
                                    {limit: CASE WHEN $query = '' THEN 1 ELSE $candidates END})
  YIELD node, score
  WITH node, score WHERE $query <> '' AND node:Entity AND node.vault = $vault
  RETURN node AS e, score
}
WITH e, max(score) AS score
RETURN elementId(e) AS id, 'entity:' + e.key AS name, score
ORDER BY score DESC, name
LIMIT $k
