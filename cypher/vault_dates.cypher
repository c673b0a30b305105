// The vault's dated notes (frontmatter dates, daily-note names, dates in the text), each with
// its first chunk: what the temporal retriever answers from while the vault's generation
// stands (retrieve/cached.py), instead of scanning every note for each question naming a date.
// Parameters: $vault (str)
// Returns: one row: paths (list<str>), dates (list<list<str>>, ISO dates, per note), chunks
//          (list<str>, each note's first chunk by ord; '' for a note without chunks); all in
//          the same order
MATCH (n:Note {vault: $vault})
WHERE n.path IS NOT NULL AND size(coalesce(n.dates, [])) > 0
CALL (n) {
  OPTIONAL MATCH (n)-[:HAS_CHUNK]->(c:Chunk)
  WITH c ORDER BY c.ord LIMIT 1
  RETURN coalesce(c.id, '') AS first
}
RETURN collect(n.path) AS paths, collect(n.dates) AS dates, collect(first) AS chunks
