// The vault's generation: a token every write transaction that changes its facts or notes
// renews (revisions_append.cypher); retrieval keeps walks and the note count under it.
// Parameters: $vault (str)
// Returns: generation (str, or null before any write that sets one)
OPTIONAL MATCH (s:NameStamp {vault: $vault})
WITH s ORDER BY s.generation
RETURN collect(s.generation)[0] AS generation
