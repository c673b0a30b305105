// Link chunks to the entities their extraction names.
// Parameters: $vault (str), $rows (list of maps: chunk_id, key, name (NFC))
// Returns: linked (int)
// Planned once per server: every node it reads is found by a unique key or element id,
// so no plan is better on a larger graph, and a sync growing the graph does not have it
// planned again on the way (planning it costs more than running a batch of it).
CYPHER replan=skip
UNWIND $rows AS row
MATCH (c:Chunk {id: row.chunk_id})
MERGE (e:Entity {vault: $vault, key: row.key}) ON CREATE SET e.name = row.name, e.embedding_state = 'pending'
// A name stored decomposed before names were stored NFC is composed when next written, as in
// facts_write_entities.cypher (only then: a SET would lock every entity a chunk names).
FOREACH (_ IN CASE WHEN e.name <> normalize(e.name) THEN [1] ELSE [] END |
  SET e.name = normalize(e.name), e.embedding_state = 'pending')
MERGE (c)-[:HAS_ENTITY]->(e)
RETURN count(*) AS linked
