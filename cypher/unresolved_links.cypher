// Links that point to no note yet, with the notes that hold them.
// Parameters: $vault (str)
// Returns: target (str, the link key), sources (list<str>, note paths)
MATCH (u:Unresolved {vault: $vault})<-[r]-(n:Note)
RETURN u.key AS target, collect(DISTINCT n.path) AS sources
ORDER BY target
