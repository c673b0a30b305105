// Chain notes' chunks in order: a NEXT from each chunk to the one after it. The chunks hold no
// NEXT edges here (new, or unchained by chunks_prune.cypher in the same transaction).
// Parameters: $pairs (list of maps: a (chunk id), b (the id of the chunk after it))
// Returns: chained (int)
UNWIND $pairs AS p
MATCH (a:Chunk {id: p.a})
MATCH (b:Chunk {id: p.b})
CREATE (a)-[:NEXT]->(b)
RETURN count(*) AS chained
