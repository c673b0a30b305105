// Notes of the vault whose path differs from $path only by letter case: the same lower-cased
// path without .md (lpath), so every link to one would resolve to either.
// Parameters: $vault (str), $stem (str, the last part of $lpath), $lpath (str), $path (str)
// Returns: path (str); one row per such note, sorted
MATCH (n:Note {vault: $vault, stem: $stem})
WHERE n.lpath = $lpath AND n.path <> $path
RETURN n.path AS path
ORDER BY path
