// Delete each rewritten note's chunks that are not in its new set, and unchain the rest
// (chunks_chain.cypher chains them again in their new order). A note new to the graph has
// nothing to prune: the writer passes only notes the graph held before.
// Parameters: $vault (str), $notes (list of maps: path, ids (list<str>, the note's chunk ids))
// Returns: pruned (int)
// Planned once per server: every node it reads is found by a unique key or by expanding
// from one, so no plan is better on a larger graph; not planned again when the statistics
// catch up after a bulk write (the first edit after a sync would pay for it).
CYPHER replan=skip
UNWIND $notes AS nt
MATCH (n:Note {vault: $vault, path: nt.path})
CALL (n, nt) {
  MATCH (n)-[:HAS_CHUNK]->(c:Chunk) WHERE NOT c.id IN nt.ids
  DETACH DELETE c RETURN count(*) AS pruned
}
CALL (n) {
  MATCH (n)-[:HAS_CHUNK]->(:Chunk)-[x:NEXT]->() DELETE x RETURN count(*) AS unchained
}
RETURN sum(pruned) AS pruned
