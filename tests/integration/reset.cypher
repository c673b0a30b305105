// Test-only: empty the database and drop every index and constraint Knotwork creates.
// tests/unit/test_cypher.py checks that it names every one schema.cypher creates.
MATCH (n) DETACH DELETE n;
DROP CONSTRAINT note_key IF EXISTS;
DROP CONSTRAINT chunk_id IF EXISTS;
DROP CONSTRAINT entity_key IF EXISTS;
DROP CONSTRAINT manifest_key IF EXISTS;
DROP INDEX chunk_embedding IF EXISTS;
DROP INDEX chunk_text IF EXISTS;
DROP INDEX entity_names IF EXISTS;
DROP CONSTRAINT unresolved_key IF EXISTS;
DROP INDEX note_stem IF EXISTS;
DROP INDEX revision_path IF EXISTS;
DROP INDEX chunk_pending IF EXISTS;
DROP INDEX chunk_embedding_state IF EXISTS;
DROP CONSTRAINT lease_vault IF EXISTS;
DROP INDEX note_mkey IF EXISTS;
DROP INDEX note_mtitle IF EXISTS;
DROP INDEX entity_mkey IF EXISTS;
DROP INDEX chunk_mtext IF EXISTS;
DROP INDEX chunk_words IF EXISTS;
DROP INDEX mention_target IF EXISTS;
DROP INDEX entity_embedding IF EXISTS;
DROP INDEX entity_embedding_state IF EXISTS
