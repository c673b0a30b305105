// The mention keys that name a note now (file stem, title, aliases), to see if they change.
// Parameters: $vault (str), $path (str)
// Returns: keys (list<str>, empty when the note does not exist)
OPTIONAL MATCH (n:Note {vault: $vault, path: $path})
RETURN coalesce(n.mkeys, []) AS keys
