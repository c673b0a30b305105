// How many of a vault's chunks each language holds (the label chunks_write.cypher gives them).
// Parameters: $vault (str)
// Returns: language (str), chunks (int)
MATCH (c:Chunk)
WHERE c.vault = $vault AND c.language IS NOT NULL
RETURN c.language AS language, count(*) AS chunks
