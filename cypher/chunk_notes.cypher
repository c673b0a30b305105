// The note of each chunk (element ids), to place chunks in the walk's graph.
// Parameters: $ids (list<str>, chunk ids)
// Returns: id (chunk id), note (element id), path (str)
UNWIND $ids AS id
MATCH (n:Note)-[:HAS_CHUNK]->(c:Chunk {id: id})
RETURN id, elementId(n) AS note, n.path AS path
