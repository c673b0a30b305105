// Record that a write changed a vault's note names, under a fresh token.
// Parameters: $vault (str), $token (str)
// Returns: token (str)
MERGE (s:NameStamp {vault: $vault})
SET s.token = $token
RETURN s.token AS token
