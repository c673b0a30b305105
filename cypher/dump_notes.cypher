// Every note of a vault as a canonical line (for verification and equality checks), with
// the count of notes that mention it (kept by the writes, so it must equal a fresh ingest's).
// Parameters: $vault (str)
// Returns: line (str)
MATCH (n:Note {vault: $vault})
RETURN n.path + '|' + n.title + '|' + n.stem + '|' + n.lpath + '|' + n.content_hash + '|'
       + apoc.convert.toJson([n.aliases, n.tags, n.dates, n.frontmatter_error]) + '|'
       + toString(coalesce(n.mentioned_by, 0)) AS line
ORDER BY line
