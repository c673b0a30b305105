// Delete note placeholders (a note named by a mention before its own batch was written) that
// were never written, e.g. when their batch failed: nothing may point at a note that is not.
// Parameters: $vault (str)
// Returns: deleted (int)
MATCH (n:Note {vault: $vault}) WHERE n.content_hash IS NULL
DETACH DELETE n
RETURN count(*) AS deleted
