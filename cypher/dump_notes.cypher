// Every note of a vault, the fields of its canonical line (check/verify.py joins them), with
// the count of notes that mention it (kept by the writes, so it must equal a fresh ingest's).
// Parameters: $vault (str)
// Returns: path, title, stem, lpath, content_hash (str), aliases, tags, dates (list<str> or
//          null), frontmatter_error (str or null), mentioned_by (int)
MATCH (n:Note {vault: $vault}) WHERE n.path IS NOT NULL
RETURN n.path AS path, n.title AS title, n.stem AS stem, n.lpath AS lpath,
       n.content_hash AS content_hash, n.aliases AS aliases, n.tags AS tags, n.dates AS dates,
       n.frontmatter_error AS frontmatter_error, coalesce(n.mentioned_by, 0) AS mentioned_by
