// Drop the chunk vector index (before re-embedding with another dimension).
// Parameters: none
// Returns: nothing
DROP INDEX chunk_embedding IF EXISTS
