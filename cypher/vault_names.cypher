// Every written note of a vault with what names it, for matching mentions in memory
// (see graph/names.py); placeholders a sync creates for notes it has not written yet are left out.
// Parameters: $vault (str)
// Returns: path (str), lpath (str), mkeys (list<str>)
MATCH (n:Note {vault: $vault}) WHERE n.path IS NOT NULL AND n.content_hash IS NOT NULL
RETURN n.path AS path, n.lpath AS lpath, coalesce(n.mkeys, []) AS mkeys
