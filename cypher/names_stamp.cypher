// The token the last write that changed a vault's note names left (a process caches the
// vault's names under it; see graph/names.py): a different token means another writer changed them.
// Parameters: $vault (str)
// Returns: tokens (list<str>, empty before any such write)
OPTIONAL MATCH (s:NameStamp {vault: $vault})
RETURN collect(s.token) AS tokens
