// Store new embeddings on existing chunks.
// Parameters: $rows (list of {id: str, embedding: list<float>})
// Returns: updated (int)
UNWIND $rows AS row
MATCH (c:Chunk {id: row.id})
CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
RETURN count(c) AS updated
