// Chain notes' chunks in order: a NEXT from each chunk to the one after it. The chunks hold no
// NEXT edges here (new, or unchained by chunks_prune.cypher in the same transaction).
// Parameters: $pairs (list of maps: a (chunk id), b (the id of the chunk after it))
// Returns: chained (int)
// Planned once per server: every node it reads is found by a unique key or element id,
// so no plan is better on a larger graph, and a sync growing the graph does not have it
// planned again on the way (planning it costs more than running a batch of it).
CYPHER replan=skip
UNWIND $pairs AS p
MATCH (a:Chunk {id: p.a})
MATCH (b:Chunk {id: p.b})
CREATE (a)-[:NEXT]->(b)
RETURN count(*) AS chained
