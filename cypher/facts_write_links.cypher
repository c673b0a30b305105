// Write notes' link facts, each resolved the way Obsidian resolves links: the note whose
// lower-cased path (without .md) equals the key or ends with '/' + key, shortest path first,
// and of notes whose paths differ only by case the one whose path sorts first (capitals
// first); when none exists, an (:Unresolved {key}) placeholder that resolves when the note
// appears. A placeholder's name is set again by unresolved_names.cypher after the batch.
// The stem lookup is pinned to an index seek: planned while a vault is still empty (the first
// batch of a sync), the planner chose a scan of the whole stem index per link, and the cached
// plan made every later batch cost O(links x notes).
// A sync resolves its links in memory against the names the vault will have once it is
// applied (names.NameIndex.link_target, the same rule) and passes `resolved` and
// `target_path`: the note, created as a placeholder when its own batch comes later in the
// sync, or null for an Unresolved placeholder.
// Parameters: $vault (str), $facts (list of maps: relation (from the fixed vocabulary, checked
//             before), stem, props (map of relationship properties, including source =
//             the asserting note's path, target = the link key, target_text = the link as
//             written), resolved (bool, optional), target_path (str or null, optional))
// Returns: touched (list of element ids of the placeholders linked: their names may change)
UNWIND $facts AS f
MATCH (n:Note {vault: $vault, path: f.props.source})
CALL (f) {
  WITH f WHERE f.resolved IS NULL
  OPTIONAL MATCH (m:Note {vault: $vault, stem: f.stem})
  USING INDEX SEEK m:Note(vault, stem)
  WHERE m.lpath = f.props.target OR m.lpath ENDS WITH '/' + f.props.target
  WITH m ORDER BY size(m.lpath), m.lpath, m.path LIMIT 1
  RETURN m
  UNION ALL
  WITH f WHERE f.resolved AND f.target_path IS NOT NULL
  MERGE (m:Note {vault: $vault, path: f.target_path})
  RETURN m
  UNION ALL
  WITH f WHERE f.resolved AND f.target_path IS NULL
  RETURN null AS m
}
CALL (f, m) {
  WITH f, m WHERE m IS NULL
  MERGE (u:Unresolved {vault: $vault, key: f.props.target})
    ON CREATE SET u.name = f.props.target_text
  RETURN u AS target
  UNION ALL
  WITH m WHERE m IS NOT NULL
  RETURN m AS target
}
CREATE (n)-[r:$(f.relation)]->(target)
SET r = f.props, r.recorded_at = datetime()
WITH target WHERE target:Unresolved
RETURN collect(DISTINCT elementId(target)) AS touched
