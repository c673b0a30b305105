// Delete every mention the given notes assert (before the reverse pass writes them anew).
// Parameters: $vault (str), $paths (list<str>, the mentioning notes)
// Returns: path (str, the mentioning note), facts (list<str>, the deleted facts as
//          note_facts.cypher renders them)
UNWIND $paths AS path
MATCH (n:Note {vault: $vault, path: path})-[r:MENTIONS]->()
WHERE r.source = path
WITH path, r,
     'MENTIONS||' + r.target + '|mention|' + toString(r.line) + '||' + r.chunk_id AS fact
DELETE r
RETURN path, collect(fact) AS facts
