// One page of chunks, ordered by id, for batch work such as re-embedding.
// Parameters: $after (str, exclusive lower bound on id; '' for the first page), $limit (int)
// Returns: id, embed_hash (what is embedded, hashed; the text hash for a chunk written before
//          chunks had a context), context (str, or the heading path), text
MATCH (c:Chunk)
WHERE c.id > $after
RETURN c.id AS id, coalesce(c.embed_hash, c.hash) AS embed_hash,
       coalesce(c.context, c.heading_path, '') AS context, c.text AS text
ORDER BY c.id
LIMIT $limit
