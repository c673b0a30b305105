// Delete entities and unresolved placeholders that nothing refers to any more (similarity
// edges are derived and do not keep an entity alive).
// Parameters: $ids (list<str>, element ids of candidates)
// Returns: deleted (int)
// Planned once per server: every node it reads is found by a unique key or element id,
// so no plan is better on a larger graph, and a sync growing the graph does not have it
// planned again on the way (planning it costs more than running a batch of it).
CYPHER replan=skip
UNWIND $ids AS id
MATCH (x) WHERE elementId(x) = id AND (x:Entity OR x:Unresolved)
  AND NOT EXISTS { MATCH (x)-[r]-() WHERE NOT r:SIMILAR_TO }
DETACH DELETE x
RETURN count(*) AS deleted
