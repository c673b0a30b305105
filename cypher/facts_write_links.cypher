// Write notes' link facts to the notes they resolve to. Resolution is done before, in memory,
// by the one rule (graph/names.py NameIndex.link_target: Obsidian's, against the names the
// vault will have once the batch or sync is applied): each fact comes with `target_path`, the
// note (created as a placeholder when its own batch comes later in a sync), or null for an
// (:Unresolved {key}) placeholder that resolves when the note appears. A placeholder's name is
// set again by unresolved_names.cypher after the batch; a link spells it by the path it names
// (target_name, set for a relative link), else as written (target_text).
// Parameters: $vault (str), $facts (list of maps: relation (from the fixed vocabulary, checked
//             before), props (map of relationship properties, including source = the
//             asserting note's path, target = the link key, target_text = the link as
//             written, target_name = the path a relative link names, else absent; heading,
//             block, display = the link's section and display text, each only when present),
//             target_path (str or null))
// Returns: touched (list of element ids of the placeholders linked), placeholders (the same
//          list: their names may change), spelled (list of maps: id, spelling (a
//          placeholder's new link spells it), for unresolved_names.cypher)
// Planned once per server: every node it reads is found by a unique key or element id,
// so no plan is better on a larger graph, and a sync growing the graph does not have it
// planned again on the way (planning it costs more than running a batch of it).
CYPHER replan=skip
UNWIND $facts AS f
MATCH (n:Note {vault: $vault, path: f.props.source})
CALL (f) {
  WITH f WHERE f.target_path IS NOT NULL
  MERGE (m:Note {vault: $vault, path: f.target_path})
  RETURN m AS target
  UNION ALL
  WITH f WHERE f.target_path IS NULL
  MERGE (u:Unresolved {vault: $vault, key: f.props.target})
    ON CREATE SET u.name = coalesce(f.props.target_name, f.props.target_text)
  RETURN u AS target
}
CREATE (n)-[r:$(f.relation)]->(target)
SET r = f.props, r.recorded_at = datetime()
WITH target, coalesce(f.props.target_name, f.props.target_text) AS spelling
WHERE target:Unresolved
WITH collect(DISTINCT elementId(target)) AS ids,
     collect(DISTINCT CASE WHEN spelling IS NOT NULL
                           THEN {id: elementId(target), spelling: spelling} END) AS spelled
RETURN ids AS touched, ids AS placeholders, spelled
