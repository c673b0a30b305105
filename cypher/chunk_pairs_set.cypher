// Give chunks the pairs of their Lao, Khmer and Myanmar runs (graph/pairs.py: chunks written
// before chunks kept them, found by chunks_unpaired.cypher). A chunk rewritten since it was
// read (its context and text no longer those paired) is left as its writer left it.
// Parameters: $rows (list of maps: id (str), text (str, as chunks_unpaired.cypher returned
//             it), pairs (str))
// Returns: updated (int)
UNWIND $rows AS row
MATCH (c:Chunk {id: row.id})
WHERE c.pairs IS NULL AND coalesce(c.context, '') + '\n' + c.text = row.text
SET c.pairs = row.pairs
RETURN count(c) AS updated
