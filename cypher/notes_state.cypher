// What the graph holds for the given notes: content hash, names and chunks (no embeddings);
// a note the graph does not hold has no row.
// Parameters: $vault (str), $paths (list<str>, vault-relative)
// Returns: path (str), content_hash (str or null for a placeholder), facts_version (int or
//          null: the FACTS_VERSION its facts were derived under), language_setting (str or
//          null: what its language was decided by, language.setting_key), mkeys (list<str> or null),
//          chunks (list of maps: id, hash, embed_hash, extraction, extraction_model, extraction_state,
//          extraction_error, has_embedding)
// Planned once per server: every node it reads is found by a unique key or by expanding
// from one, so no plan is better on a larger graph; not planned again when the statistics
// catch up after a bulk write (the first edit or delete after a sync would pay for it).
CYPHER replan=skip
UNWIND $paths AS path
MATCH (n:Note {vault: $vault, path: path})
OPTIONAL MATCH (n)-[:HAS_CHUNK]->(c:Chunk)
WITH path, n, c ORDER BY c.ord
RETURN path, n.content_hash AS content_hash, n.facts_version AS facts_version,
       n.language_setting AS language_setting,
       n.mkeys AS mkeys,
       [x IN collect(c) | x {.id, .hash, .embed_hash, .extraction, .extraction_model, .extraction_state,
                             .extraction_error, has_embedding: x.embedding IS NOT NULL}] AS chunks
