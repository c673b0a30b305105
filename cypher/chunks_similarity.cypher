// How near each chunk is to the question: the cosine of its embedding and the question's.
// Parameters: $ids (list<str>, chunk ids), $embedding (list<float>)
// Returns: id (chunk id), score (float, cosine; 0 for a chunk not yet embedded)
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
RETURN id, CASE WHEN c.embedding IS NULL THEN 0.0
                ELSE vector.similarity.cosine(c.embedding, $embedding) END AS score
