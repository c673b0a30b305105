// How many chunks of a vault `knotwork retry` still has to do: those waiting for an
// embedding, and with $extract those waiting for a model extraction; and how many steps that
// is (a chunk waiting for both counts two), counted as the background passes count their work.
// Parameters: $vault (str), $extract (bool)
// Returns: chunks (int), steps (int)
MATCH (c:Chunk)
WHERE c.vault = $vault
  AND (c.embedding_state = 'pending' OR ($extract AND c.extraction_state = 'pending'))
RETURN count(c) AS chunks,
       sum(CASE WHEN c.embedding_state = 'pending' THEN 1 ELSE 0 END)
         + sum(CASE WHEN $extract AND c.extraction_state = 'pending' THEN 1 ELSE 0 END) AS steps
