// The link keys by which other notes' facts point at the given notes (to re-resolve them when
// those notes go).
// Parameters: $vault (str), $paths (list<str>)
// Returns: keys (list<str>)
UNWIND $paths AS path
MATCH (n:Note {vault: $vault, path: path})
OPTIONAL MATCH (n)<-[r]-()
  WHERE r.source <> path AND r.extractor IN ['wikilink', 'frontmatter']
RETURN collect(DISTINCT r.target) AS keys
