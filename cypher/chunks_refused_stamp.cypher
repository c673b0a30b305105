// Chunks whose embedding the model refused alone in a retry (ingest/retry.py), stamped with
// when: chunks_pending.cypher reads them after the chunks never refused, and a background pass
// does not ask again within the model's back-off. A write stamps the chunks it stores refused
// (chunks_write.cypher), `reembed` those it leaves pending (chunks_embedding_refused.cypher). The stamp goes when a vector is stored
// (chunk_embedding_set.cypher, chunks_write.cypher); an edited note's text is a new chunk.
// Parameters: $rows (list of maps: id, embed_hash (of the text that was refused; a chunk
//             written before chunks had a context is matched by its text hash)),
//             $at (int, milliseconds since the epoch)
// Returns: updated (int)
UNWIND $rows AS row
MATCH (c:Chunk {id: row.id})
WHERE coalesce(c.embed_hash, c.hash) = row.embed_hash AND c.embedding_state = 'pending'
SET c.embedding_refused_at = $at
RETURN count(c) AS updated
