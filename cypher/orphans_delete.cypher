// Delete entities and unresolved placeholders that nothing refers to any more (similarity
// edges are derived and do not keep an entity alive).
// Parameters: $ids (list<str>, element ids of candidates)
// Returns: deleted (int)
UNWIND $ids AS id
MATCH (x) WHERE elementId(x) = id AND (x:Entity OR x:Unresolved)
  AND NOT EXISTS { MATCH (x)-[r]-() WHERE NOT r:SIMILAR_TO }
DETACH DELETE x
RETURN count(*) AS deleted
