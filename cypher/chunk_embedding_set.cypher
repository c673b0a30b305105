// Store an embedding on a chunk that was waiting for one, if its text is unchanged.
// Parameters: $rows (list of maps: id, hash, embedding (list<float>))
// Returns: updated (int)
UNWIND $rows AS row
MATCH (c:Chunk {id: row.id, hash: row.hash})
CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
SET c.embedding_state = 'done'
RETURN count(c) AS updated
