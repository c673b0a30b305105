// Entities of a vault whose name has not been embedded yet (new, or left while the embedding
// model was unavailable).
// Parameters: $vault (str), $limit (int)
// Returns: key (str), name (str)
MATCH (e:Entity {vault: $vault, embedding_state: 'pending'})
RETURN e.key AS key, e.name AS name
ORDER BY key
LIMIT $limit
