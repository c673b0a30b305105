// Store the embeddings of entity names; a refusal recorded before is over.
// Parameters: $vault (str), $rows (list of maps: key, embedding (list<float>))
// Returns: updated (int)
UNWIND $rows AS row
MATCH (e:Entity {vault: $vault, key: row.key})
CALL db.create.setNodeVectorProperty(e, 'embedding', row.embedding)
SET e.embedding_state = 'done'
REMOVE e.embedding_refused_at
RETURN count(e) AS updated
