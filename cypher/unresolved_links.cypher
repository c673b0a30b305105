// Links that point to no note yet, with the notes that hold them.
// Parameters: $vault (str)
// Returns: target (str, the link as written: its placeholder's name, else its key),
//          sources (list<str>, note paths, sorted); in the order of the keys
MATCH (u:Unresolved {vault: $vault})<-[r]-(n:Note)
WITH u, n.path AS source
ORDER BY source
WITH u, collect(DISTINCT source) AS sources
RETURN coalesce(u.name, u.key) AS target, sources
ORDER BY u.key
