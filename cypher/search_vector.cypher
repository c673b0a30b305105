// Nearest chunks to a query embedding (cosine), within one vault. The index answers across
// every vault, so the caller asks again with a larger $k while the page came back full but
// held fewer than it needs of this vault's chunks.
// Parameters: $vault (str), $embedding (list<float>), $k (int, candidates asked of the index)
// Returns: one row: returned (int, candidates the index gave, any vault), hits (list of maps
//          id, score (float, higher is nearer), best first, this vault's only)
CALL db.index.vector.queryNodes('chunk_embedding', $k, $embedding) YIELD node, score
WITH collect({id: node.id, score: score, vault: node.vault}) AS found
RETURN size(found) AS returned,
       [f IN found WHERE f.vault = $vault | {id: f.id, score: f.score}] AS hits
