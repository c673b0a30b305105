// Delete a note's chunks that are not in the new set, and re-chain the rest in order.
// Parameters: $vault (str), $path (str), $ids (list<str>, the note's chunk ids in order)
// Returns: pruned (int)
MATCH (n:Note {vault: $vault, path: $path})
CALL (n) {
  MATCH (n)-[:HAS_CHUNK]->(c:Chunk) WHERE NOT c.id IN $ids
  DETACH DELETE c RETURN count(*) AS pruned
}
CALL (n) {
  MATCH (n)-[:HAS_CHUNK]->(:Chunk)-[x:NEXT]->() DELETE x RETURN count(*) AS unchained
}
CALL () {
  UNWIND range(0, size($ids) - 2) AS i
  MATCH (a:Chunk {id: $ids[i]}), (b:Chunk {id: $ids[i + 1]})
  MERGE (a)-[:NEXT]->(b)
  RETURN count(*) AS chained
}
RETURN pruned
