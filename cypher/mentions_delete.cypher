// Delete every mention of $keys asserted by notes other than $exclude (before they are
// written anew by the reverse pass).
// Parameters: $vault (str), $keys (list<str>, mention keys), $exclude (str note path, or null)
// Returns: path (str, the mentioning note), facts (list<str>, the deleted facts as
//          note_facts.cypher renders them)
UNWIND $keys AS key
MATCH (n:Note)-[r:MENTIONS {target: key}]->()
WHERE n.vault = $vault AND r.source = n.path AND n.path <> coalesce($exclude, '')
WITH n.path AS path, r,
     'MENTIONS||' + r.target + '|mention|' + toString(r.line) + '||' + r.chunk_id AS fact
DELETE r
RETURN path, collect(fact) AS facts
