// Chunks matching a Lucene query on their text (BM25), within one vault.
// Parameters: $vault (str), $query (str, already escaped), $k (int, candidates)
// Returns: id (chunk id), score (float)
CALL db.index.fulltext.queryNodes('chunk_text', $query, {limit: $k}) YIELD node, score
WHERE node.vault = $vault
RETURN node.id AS id, score
ORDER BY score DESC
