// Delete each note's chunks that are not in its new set, and re-chain the rest in order.
// Parameters: $vault (str), $notes (list of maps: path, ids (list<str>, the note's chunk ids
//             in order))
// Returns: pruned (int)
UNWIND $notes AS nt
MATCH (n:Note {vault: $vault, path: nt.path})
CALL (n, nt) {
  MATCH (n)-[:HAS_CHUNK]->(c:Chunk) WHERE NOT c.id IN nt.ids
  DETACH DELETE c RETURN count(*) AS pruned
}
CALL (n) {
  MATCH (n)-[:HAS_CHUNK]->(:Chunk)-[x:NEXT]->() DELETE x RETURN count(*) AS unchained
}
CALL (nt) {
  UNWIND range(0, size(nt.ids) - 2) AS i
  MATCH (a:Chunk {id: nt.ids[i]}), (b:Chunk {id: nt.ids[i + 1]})
  MERGE (a)-[:NEXT]->(b)
  RETURN count(*) AS chained
}
RETURN sum(pruned) AS pruned
