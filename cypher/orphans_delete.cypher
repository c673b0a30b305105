// Delete entities and unresolved placeholders that nothing refers to any more.
// Parameters: $ids (list<str>, element ids of candidates)
// Returns: deleted (int)
UNWIND $ids AS id
MATCH (x) WHERE elementId(x) = id AND (x:Entity OR x:Unresolved) AND NOT EXISTS { (x)--() }
DELETE x
RETURN count(*) AS deleted
