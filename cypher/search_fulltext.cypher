// Chunks matching a Lucene query on their text and context (BM25), within one vault, from
// each given language's index (schema.cypher): each analyses the question as it analysed its
// chunks. One row per index, as asked; the caller merges them (retrieve/search.py, by each
// hit's share of its own index's best) and asks an index again, with a larger limit, while
// its page came back full but held fewer than it needs of this vault's chunks: an index
// answers across every vault, and each index is crowded by other vaults on its own.
// Parameters: $vault (str), $queries (list<str>, already escaped, the query of each index: the
//             `cjk` index's keeps Han, kana and Hangul runs whole, chunk_pairs's is the pairs
//             of Lao, Khmer and Myanmar runs, retrieve/lucene.py), $indexes (list<str>,
//             chunk_text_* and chunk_pairs index names), $limits (list<int>, candidates
//             asked of each), all three in the same order
// Returns: index (str, one row per index, in the order of $indexes), returned (int, the
//          candidates it gave, any vault), hits (list of maps id, score (float, BM25), best
//          first, this vault's only)
UNWIND range(0, size($indexes) - 1) AS i
CALL (i) {
  CALL db.index.fulltext.queryNodes($indexes[i], $queries[i], {limit: $limits[i]})
    YIELD node, score
  RETURN count(node) AS returned,
         collect(CASE WHEN node.vault = $vault THEN {id: node.id, score: score} END) AS hits
}
RETURN $indexes[i] AS index, returned, hits
