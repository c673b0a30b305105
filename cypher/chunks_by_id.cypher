// Chunks with their note, for citing them.
// Parameters: $ids (list<str>)
// Returns: id, path, title, heading_path, line_start, line_end, text
UNWIND $ids AS id
MATCH (n:Note)-[:HAS_CHUNK]->(c:Chunk {id: id})
RETURN c.id AS id, n.path AS path, n.title AS title, c.heading_path AS heading_path,
       c.line_start AS line_start, c.line_end AS line_end, c.text AS text
