// Drop the vector indexes (before re-embedding with another dimension).
// Parameters: none
// Returns: nothing
DROP INDEX chunk_embedding IF EXISTS;

DROP INDEX note_embedding IF EXISTS;

DROP INDEX entity_embedding IF EXISTS
