// Store an embedding on a chunk that was waiting for one, if what it embeds is unchanged; a
// refusal stamped before (chunks_refused_stamp.cypher) is over.
// Parameters: $rows (list of maps: id, embed_hash (of the text that was embedded; a chunk
//             written before chunks had a context is matched by its text hash),
//             embedding (list<float>))
// Returns: updated (int)
UNWIND $rows AS row
MATCH (c:Chunk {id: row.id})
WHERE coalesce(c.embed_hash, c.hash) = row.embed_hash
CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
SET c.embedding_state = 'done'
REMOVE c.embedding_refused_at
RETURN count(c) AS updated
