// Chunks matching a Lucene query on their text and context (BM25), within one vault, from
// every language's index (schema.cypher): each analyses the question as it analysed its
// chunks. The indexes' hits are merged by their share of their own index's best score for
// this vault, a tie by the order of $indexes (the vault's main language first), then score:
// BM25 scores of two indexes, each with its own analyzer and term statistics over every
// vault's chunks in its language, are not on one scale. An index answers across every
// vault, so the caller asks again with a larger $k while a page came back full but held
// fewer than it needs of this vault's chunks.
// Parameters: $vault (str), $query (str, already escaped), $k (int, candidates per index),
//             $indexes (list<str>, the chunk_text_* index names, the vault's main language
//             first)
// Returns: one row: returned (int, the most candidates one index gave, any vault), hits (list
//          of maps id, score (float: its BM25 score's share of its index's best for this
//          vault, in (0, 1]), best first, this vault's only)
UNWIND range(0, size($indexes) - 1) AS i
CALL (i) {
  CALL db.index.fulltext.queryNodes($indexes[i], $query, {limit: $k}) YIELD node, score
  WITH count(node) AS returned,
       collect(CASE WHEN node.vault = $vault THEN {id: node.id, score: score} END) AS page
  RETURN returned, page,
         reduce(best = 0.0, h IN page | CASE WHEN h.score > best THEN h.score ELSE best END)
           AS best
}
WITH max(returned) AS returned, collect({page: page, best: best, i: i}) AS pages
CALL (pages) {
  UNWIND pages AS p
  UNWIND p.page AS hit
  WITH hit, hit.score / p.best AS share, p.i AS i
  ORDER BY share DESC, i, hit.score DESC, hit.id
  RETURN collect({id: hit.id, score: share}) AS hits
}
RETURN returned, hits
