// How many notes a vault holds: the document count a name's specificity is measured against.
// Parameters: $vault (str)
// Returns: notes (int)
MATCH (n:Note {vault: $vault}) WHERE n.path IS NOT NULL
RETURN count(n) AS notes
