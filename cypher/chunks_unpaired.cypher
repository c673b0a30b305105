// Chunks holding Lao, Khmer or Myanmar but no pairs of their runs (Chunk.pairs, text/pairs.py),
// as a graph written before chunks kept them holds them: a page at a time, by id after
// $after, so one pass reads every chunk once (graph/pairs.py, when the schema is applied to a
// graph of an older schema version).
// Parameters: $after (str, the last id of the page before; '' for the first), $pattern (str, a
//             regex a text holding any character of the three scripts matches whole),
//             $limit (int)
// Returns: id (str), text (str, its context and text, as chunks_write.cypher's pairs are of)
MATCH (c:Chunk)
WHERE c.id > $after AND c.pairs IS NULL AND (c.text =~ $pattern OR c.context =~ $pattern)
RETURN c.id AS id, coalesce(c.context, '') + '\n' + c.text AS text
ORDER BY id
LIMIT $limit
