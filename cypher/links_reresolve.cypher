// Re-point the link facts that target the given keys to the note each key resolves to now
// (or to an Unresolved placeholder), e.g. after notes appear, move or are deleted. The stem
// lookup of the best note is pinned to an index seek, as in facts_write_links.cypher.
// Parameters: $vault (str), $keys (list of maps: key, stem), $exclude (list<str>, element ids
//             of notes about to be deleted)
// Returns: touched (list of element ids of nodes that lost a relationship, and of placeholders
//          that gained one: orphan candidates, and placeholders to name again)
UNWIND $keys AS k
CALL (k) {
  MATCH (:Unresolved {vault: $vault, key: k.key})<-[r]-() RETURN r
  UNION
  MATCH (:Note {vault: $vault, stem: k.stem})<-[r]-() WHERE r.target = k.key
    AND r.extractor IN ['wikilink', 'frontmatter']
  RETURN r
}
CALL (k) {
  OPTIONAL MATCH (m:Note {vault: $vault, stem: k.stem})
  USING INDEX SEEK m:Note(vault, stem)
  WHERE (m.lpath = k.key OR m.lpath ENDS WITH '/' + k.key) AND NOT elementId(m) IN $exclude
  WITH m ORDER BY size(m.lpath), m.lpath, m.path LIMIT 1
  RETURN m AS best
}
WITH r, k, best, startNode(r) AS src, endNode(r) AS old
WHERE (best IS NULL AND NOT old:Unresolved) OR (best IS NOT NULL AND old <> best)
CALL (k, best) {
  WITH k, best WHERE best IS NULL
  MERGE (u:Unresolved {vault: $vault, key: k.key}) ON CREATE SET u.name = k.key
  RETURN u AS dest
  UNION
  WITH best WHERE best IS NOT NULL
  RETURN best AS dest
}
CREATE (src)-[moved:$(type(r))]->(dest)
SET moved = properties(r)
WITH r, elementId(old) AS oid, CASE WHEN dest:Unresolved THEN elementId(dest) END AS did
DELETE r
WITH collect(oid) + collect(did) AS ids
UNWIND ids AS id
RETURN collect(DISTINCT id) AS touched
