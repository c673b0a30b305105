// Re-point the link facts that target the given keys to the note each key resolves to now
// (or to an Unresolved placeholder), e.g. after notes appear, move or are deleted. Each key
// comes resolved by the one rule (graph/names.py NameIndex.link_target) against the names the
// vault will have once the batch or sync is applied; a target whose batch comes later in a
// sync is created as a placeholder, as facts_write_links.cypher does. A placeholder that held no
// link before is named here by the links it takes (their smallest spelling, the rule of
// unresolved_names.cypher, else its key) and not listed to name again: the links of a note
// deleted or renamed that move to a new placeholder leave nothing to name after them.
// Parameters: $vault (str), $keys (list of maps: key, stem (the key's last segment), target
//             (the path of the note the key resolves to, or null))
// Returns: touched (list of element ids of the Unresolved placeholders that lost a link: orphan
//          candidates), placeholders (list of element ids of those and of the placeholders that
//          gained one while holding others: to name again), spelled (list of maps: id, spelling
//          (how a link such a placeholder gained spells it), for unresolved_names.cypher)
// Planned once per server: it finds placeholders by unique key and notes by the note_stem
// index (a seek whatever the statistics), so it is not planned again when they catch up
// after a bulk write (the first delete after a sync would pay for it).
CYPHER replan=skip
UNWIND $keys AS k
CALL (k) {
  MATCH (:Unresolved {vault: $vault, key: k.key})<-[r]-() RETURN r
  UNION
  MATCH (:Note {vault: $vault, stem: k.stem})<-[r]-() WHERE r.target = k.key
    AND r.extractor IN ['wikilink', 'frontmatter']
  RETURN r
}
WITH k, collect(r) AS links WHERE size(links) > 0
// Where the key's links go: its note, or its Unresolved placeholder. Every link found that is
// not there already moves; a placeholder merged here already held one of them unless some
// link is on a note, which then moves to it, so the merge creates nothing that stays unused.
CALL (k) {
  WITH k WHERE k.target IS NOT NULL
  MERGE (m:Note {vault: $vault, path: k.target})
  RETURN m AS dest
  UNION
  WITH k WHERE k.target IS NULL
  MERGE (u:Unresolved {vault: $vault, key: k.key}) ON CREATE SET u.name = k.key
  RETURN u AS dest
}
// A placeholder that holds nothing yet takes every link found (none is on it already).
WITH k, links, dest, dest:Unresolved AND NOT EXISTS { (dest)--() } AS fresh
CALL (links, dest, fresh) {
  WITH links, dest WHERE fresh
  UNWIND links AS r
  WITH dest, min(coalesce(r.target_name, r.target_text)) AS lowest
  SET dest.name = coalesce(lowest, dest.key)
}
UNWIND links AS r
WITH r, dest, fresh, startNode(r) AS src, endNode(r) AS old
WHERE old <> dest
CREATE (src)-[moved:$(type(r))]->(dest)
SET moved = properties(r)
WITH r, CASE WHEN old:Unresolved THEN elementId(old) END AS oid,
     CASE WHEN dest:Unresolved AND NOT fresh THEN elementId(dest) END AS did,
     CASE WHEN dest:Unresolved AND NOT fresh
               AND coalesce(r.target_name, r.target_text) IS NOT NULL
          THEN {id: elementId(dest), spelling: coalesce(r.target_name, r.target_text)}
     END AS spelled
DELETE r
WITH collect(oid) AS lost, collect(oid) + collect(did) AS ids, collect(DISTINCT spelled) AS spelled
RETURN COLLECT { UNWIND lost AS id RETURN DISTINCT id } AS touched,
       COLLECT { UNWIND ids AS id RETURN DISTINCT id } AS placeholders, spelled
