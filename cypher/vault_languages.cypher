// How many of a vault's embedded chunks each language holds (the label chunks_write.cypher
// gives them).
// Parameters: $vault (str)
// Returns: language (str), chunks (int)
MATCH (c:Chunk)
WHERE c.vault = $vault AND c.language IS NOT NULL AND c.embedding_state = 'done'
RETURN c.language AS language, count(*) AS chunks
