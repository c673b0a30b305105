// Number of chunks in the graph.
// Parameters: none
// Returns: chunks (int)
MATCH (c:Chunk) RETURN count(c) AS chunks
