// verify's scratch vault (check/verify.py) takes the notes of the vault it checks that the
// folder holds but cannot read (binary, too large) or list (under an unreadable folder): that
// vault's sync keeps them at their last version, so other notes' links and mentions resolve to
// them there, and must in the fresh parse too. Each note's node is copied, less what other
// notes' writes keep (the count of notes that mention it) and its embedding.
// Parameters: $source (str, the vault checked), $vault (str, the scratch vault),
//             $paths (list<str>: notes not read), $folders (list<str>: folders not listed)
// Returns: path (str, one row per note copied), content_hash (str)
MATCH (n:Note {vault: $source})
WHERE n.path IS NOT NULL AND n.content_hash IS NOT NULL
  AND (n.path IN $paths OR any(f IN $folders WHERE n.path STARTS WITH f + '/'))
MERGE (k:Note {vault: $vault, path: n.path})
SET k += n {.*, vault: $vault}
REMOVE k.mentioned_by, k.embedding
RETURN k.path AS path, k.content_hash AS content_hash
