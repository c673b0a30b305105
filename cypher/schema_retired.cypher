// Indexes of earlier versions that schema.cypher no longer creates; run before it, idempotent.
// Parameters: none
// Returns: nothing.
// chunk_text: one full-text index of the default analyzer, replaced by one per language.
DROP INDEX chunk_text IF EXISTS;

// chunk_mtext: a trigram text index for the reverse mention pass, replaced by chunk_words.
DROP INDEX chunk_mtext IF EXISTS
