// Nearest chunks to a query embedding (cosine), within one vault.
// Parameters: $vault (str), $embedding (list<float>), $k (int, candidates asked of the index;
//             ask more than needed, since other vaults' chunks are filtered out after)
// Returns: id (chunk id), score (float, higher is nearer)
CALL db.index.vector.queryNodes('chunk_embedding', $k, $embedding) YIELD node, score
WHERE node.vault = $vault
RETURN node.id AS id, score
ORDER BY score DESC
