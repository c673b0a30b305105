// The link keys by which other notes' facts point at a note (to re-resolve them when it goes).
// Parameters: $vault (str), $path (str)
// Returns: id (element id of the note), keys (list<str>)
MATCH (n:Note {vault: $vault, path: $path})
OPTIONAL MATCH (n)<-[r]-()
  WHERE r.source <> $path AND r.extractor IN ['wikilink', 'frontmatter']
RETURN elementId(n) AS id, collect(DISTINCT r.target) AS keys
