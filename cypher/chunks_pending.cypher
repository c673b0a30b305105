// Chunks of a vault still waiting for an embedding, or with $extract a model extraction.
// Parameters: $vault (str), $extract (bool), $limit (int)
// Returns: id, hash, embed_hash (or the text hash for a chunk from before contexts), note_path, heading_path, context (str or null), text, line_start, embedding_state,
//          extraction_state
MATCH (c:Chunk)
WHERE c.vault = $vault
  AND (c.embedding_state = 'pending' OR ($extract AND c.extraction_state = 'pending'))
RETURN c.id AS id, c.hash AS hash, coalesce(c.embed_hash, c.hash) AS embed_hash, c.note_path AS note_path, c.heading_path AS heading_path,
       c.context AS context,
       c.text AS text, c.line_start AS line_start, c.embedding_state AS embedding_state,
       c.extraction_state AS extraction_state
// Unembedded first: a chat model down (whose chunks stay pending) never keeps a retry from
// embedding the rest, which search needs. Then never tried first, then the longest-waiting
// (chunk_extraction_tried.cypher): a chunk that keeps failing goes behind the others.
ORDER BY CASE c.embedding_state WHEN 'pending' THEN 0 ELSE 1 END,
         coalesce(c.extraction_tried_at, 0), c.note_path, c.ord
LIMIT $limit
