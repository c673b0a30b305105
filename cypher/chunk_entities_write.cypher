// Link chunks to the entities their extraction names.
// Parameters: $vault (str), $rows (list of maps: chunk_id, key, name)
// Returns: linked (int)
UNWIND $rows AS row
MATCH (c:Chunk {id: row.chunk_id})
MERGE (e:Entity {vault: $vault, key: row.key}) ON CREATE SET e.name = row.name, e.embedding_state = 'pending'
MERGE (c)-[:HAS_ENTITY]->(e)
RETURN count(*) AS linked
