// Link each given entity to its nearest entities of the same vault whose names are similar
// enough: one SIMILAR_TO per pair, from the smaller key to the larger. Derived edges carry no
// `source`, so they are never taken for a note's assertions. New edges renew the vault's
// generation, as a note's write does: a walk retrieval kept must take them (cached.py).
// Parameters: $vault (str), $keys (list<str>, entities embedded just before), $k (int,
//             neighbours asked of the vector index), $min_score (float, the index's cosine
//             score, (1 + cosine) / 2)
// Returns: linked (int)
UNWIND $keys AS key
MATCH (e:Entity {vault: $vault, key: key}) WHERE e.embedding IS NOT NULL
CALL db.index.vector.queryNodes('entity_embedding', $k, e.embedding) YIELD node, score
WITH e, node, score
WHERE node <> e AND node.vault = $vault AND score >= $min_score
WITH CASE WHEN e.key < node.key THEN e ELSE node END AS a,
     CASE WHEN e.key < node.key THEN node ELSE e END AS b, score
MERGE (a)-[s:SIMILAR_TO]->(b)
SET s.cosine = 2 * score - 1, s.extractor = 'similarity'
WITH count(DISTINCT s) AS linked
FOREACH (_ IN CASE WHEN linked > 0 THEN [1] ELSE [] END |
  MERGE (stamp:NameStamp {vault: $vault})
  SET stamp.generation = randomUUID())
RETURN linked
