// Chunks matching a Lucene query on their text and context (BM25), within one vault, from
// every language's index (schema.cypher): each analyses the question as it analysed its
// chunks. An index answers across every vault, so the caller asks again with a larger $k while
// a page came back full but held fewer than it needs of this vault's chunks.
// Parameters: $vault (str), $query (str, already escaped), $k (int, candidates per index),
//             $indexes (list<str>, the chunk_text_* index names)
// Returns: one row: returned (int, the most candidates one index gave, any vault), hits (list
//          of maps id, score (float), best first, this vault's only)
UNWIND $indexes AS idx
CALL (idx) {
  CALL db.index.fulltext.queryNodes(idx, $query, {limit: $k}) YIELD node, score
  RETURN count(node) AS returned,
         collect(CASE WHEN node.vault = $vault THEN {id: node.id, score: score} END) AS page
}
WITH max(returned) AS returned, collect(page) AS pages
CALL (pages) {
  UNWIND pages AS page
  UNWIND page AS hit
  WITH hit ORDER BY hit.score DESC
  RETURN collect(hit) AS hits
}
RETURN returned, hits
