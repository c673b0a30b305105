// Indexes of earlier versions that schema.cypher no longer creates; run before it, idempotent.
// Parameters: none
// Returns: nothing.
// chunk_text: one full-text index of the default analyzer, replaced by one per language.
DROP INDEX chunk_text IF EXISTS;

// chunk_mtext: a trigram text index for the reverse mention pass, replaced by chunk_words.
DROP INDEX chunk_mtext IF EXISTS;

// note_vault: a note's vault alone; lookups by vault and path were planned through it (see
// note_key in schema.cypher).
DROP INDEX note_vault IF EXISTS