// How many note placeholders of a vault were never written (notes_placeholders_delete.cypher
// deletes them). Most syncs leave none, and this costs Neo4j far less to plan than the delete,
// which a first sync on a new database would otherwise plan for nothing (bench/RESULTS.md,
// "Planning a first sync").
// Parameters: $vault (str)
// Returns: placeholders (int)
MATCH (n:Note {vault: $vault}) WHERE n.path IS NOT NULL AND n.content_hash IS NULL
RETURN count(n) AS placeholders
