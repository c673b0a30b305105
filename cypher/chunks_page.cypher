// One page of chunks, ordered by id, for batch work such as re-embedding.
// Parameters: $after (str, exclusive lower bound on id; '' for the first page), $limit (int)
// Returns: id, hash, text (what is embedded: heading path and text)
MATCH (c:Chunk)
WHERE c.id > $after
RETURN c.id AS id, c.hash AS hash,
       CASE WHEN coalesce(c.heading_path, '') = '' THEN c.text
            ELSE c.heading_path + '\n\n' + c.text END AS text
ORDER BY c.id
LIMIT $limit
