// Entity names whose vector the embedding model refused (ingest/similar.py): stamped with when,
// so entities_pending.cypher reads them after the names never refused, and not again within
// the model's back-off unless a retry asks; the stamp goes when a vector is stored
// (entity_embedding_set.cypher) or the names are reset (a re-embedding).
// Parameters: $vault (str), $keys (list of str), $at (int, milliseconds since the epoch)
// Returns: updated (int)
UNWIND $keys AS key
MATCH (e:Entity {vault: $vault, key: key, embedding_state: 'pending'})
SET e.embedding_refused_at = $at
RETURN count(e) AS updated
