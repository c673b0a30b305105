// Delete one batch of a vault's nodes (notes, chunks, entities, placeholders, revisions);
// never its lease, which the dropping writer holds.
// Run repeatedly until it deletes nothing.
// Parameters: $vault (str), $limit (int)
// Returns: deleted (int)
MATCH (n) WHERE n.vault = $vault AND NOT n:Lease
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
