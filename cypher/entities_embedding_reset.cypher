// Forget every entity-name embedding and the similarity edges built on them (before the
// vector indexes are rebuilt for another embedding model); names are embedded again later,
// a refusal by the old model forgotten.
// Parameters: none
// Returns: reset (int)
MATCH (e:Entity)
OPTIONAL MATCH (e)-[s:SIMILAR_TO]-()
DELETE s
WITH DISTINCT e
REMOVE e.embedding, e.embedding_refused_at
SET e.embedding_state = 'pending'
RETURN count(e) AS reset
