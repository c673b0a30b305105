// One page of chunks, ordered by id, for batch work such as re-embedding.
// Parameters: $after (str, exclusive lower bound on id; '' for the first page), $limit (int)
// Returns: id, text
MATCH (c:Chunk)
WHERE c.id > $after
RETURN c.id AS id, c.text AS text
ORDER BY c.id
LIMIT $limit
