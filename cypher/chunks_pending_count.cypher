// How many chunks of a vault `knotwork retry` still has to do: those waiting for an
// embedding, and with $extract those waiting for a model extraction.
// Parameters: $vault (str), $extract (bool)
// Returns: chunks (int)
MATCH (c:Chunk)
WHERE c.vault = $vault
  AND (c.embedding_state = 'pending' OR ($extract AND c.extraction_state = 'pending'))
RETURN count(c) AS chunks
