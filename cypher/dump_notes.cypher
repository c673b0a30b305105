// Every note of a vault as a canonical line (for verification and equality checks).
// Parameters: $vault (str)
// Returns: line (str)
MATCH (n:Note {vault: $vault})
RETURN n.path + '|' + n.title + '|' + n.stem + '|' + n.lpath + '|' + n.content_hash + '|'
       + apoc.convert.toJson([n.aliases, n.tags, n.dates, n.frontmatter_error]) AS line
ORDER BY line
