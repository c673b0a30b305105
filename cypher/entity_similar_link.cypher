// Link each given entity to its nearest entities of the same vault whose names are similar
// enough: one SIMILAR_TO per pair, from the smaller key to the larger. Derived edges carry no
// `source`, so they are never taken for a note's assertions. New edges renew the vault's
// generation, as a note's write does: a walk retrieval kept must take them (cached.py).
// The vector index holds every vault's entities: an entity whose page of $k neighbours came
// back full, short of $top_k of its vault's own, and still within $min_score at its end may
// have more of them deeper, so it is linked to none here and returned in `deeper`, for the
// caller to ask again with a larger $k (ingest/similar.py): other vaults never crowd it out.
// Neighbours at the same score are taken by key, not in the index's order (which other
// vaults' nodes shape), and a tie at its $top_k-th that reaches the page's end is asked
// deeper too: two copies of one vault get the same edges.
// Parameters: $vault (str), $keys (list<str>, entities embedded just before), $k (int,
//             neighbours asked of the vector index, the entity itself included), $top_k
//             (int, the most it is linked to), $min_score (float, the index's cosine score,
//             (1 + cosine) / 2), $deepen (bool, false: link every entity whatever its page)
// Returns: edges (list<str>, element ids of the edges linked: an edge two entities of the
//          page found is counted once, across the asks too), deeper (list<str>, the keys to
//          ask again with a larger $k)
UNWIND $keys AS key
MATCH (e:Entity {vault: $vault, key: key}) WHERE e.embedding IS NOT NULL
CALL (e) {
  CALL db.index.vector.queryNodes('entity_embedding', $k, e.embedding) YIELD node, score
  WITH node, score ORDER BY score DESC, node.key
  WITH collect({node: node, score: score}) AS page
  RETURN size(page) AS returned, page[-1].score AS lowest,
         [x IN page WHERE x.node <> e AND x.node.vault = $vault][..$top_k] AS own
}
WITH e, own,
     $deepen AND returned >= $k AND lowest >= $min_score
     AND (size(own) < $top_k OR own[-1].score <= lowest) AS deeper
WITH collect(CASE WHEN deeper THEN e.key END) AS deeper,
     collect(CASE WHEN NOT deeper THEN [x IN own WHERE x.score >= $min_score |
                                         {e: e, node: x.node, score: x.score}] END) AS found
CALL (found) {
  UNWIND reduce(all = [], pairs IN found | all + pairs) AS pair
  WITH pair.e AS e, pair.node AS node, pair.score AS score
  WITH CASE WHEN e.key < node.key THEN e ELSE node END AS a,
       CASE WHEN e.key < node.key THEN node ELSE e END AS b, score
  MERGE (a)-[s:SIMILAR_TO]->(b)
  SET s.cosine = 2 * score - 1, s.extractor = 'similarity'
  RETURN collect(DISTINCT elementId(s)) AS edges
}
FOREACH (_ IN CASE WHEN edges <> [] THEN [1] ELSE [] END |
  MERGE (stamp:NameStamp {vault: $vault})
  SET stamp.generation = randomUUID())
RETURN edges, deeper
