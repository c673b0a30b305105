// Create or update a note node.
// Parameters: $vault (str), $path (str), $props (map: title, name, stem, lpath, aliases, tags,
//             content_hash, mtime, dates, frontmatter, frontmatter_error,
//             mkey, mtitle, mkeys (mention keys), facts_version)
// Returns: id (element id)
MERGE (n:Note {vault: $vault, path: $path})
ON CREATE SET n.created_at = datetime()
SET n += $props, n.updated_at = datetime()
RETURN elementId(n) AS id
