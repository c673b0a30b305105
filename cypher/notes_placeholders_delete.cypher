// Delete note placeholders (a note named by a mention or link before its own batch was
// written) that were never written, e.g. when their batch failed: nothing may point at a note
// that is not. Their links are first moved to an Unresolved placeholder of the link's key, for
// links_reresolve.cypher to move on to another note the key names, if any.
// Parameters: $vault (str)
// Returns: deleted (int), paths (list<str>, the placeholders' paths), keys (list<str>, link
//          keys moved), placeholders (list<str>, element ids of the Unresolved placeholders
//          that gained links: to name again)
MATCH (n:Note {vault: $vault}) WHERE n.content_hash IS NULL
CALL (n) {
  MATCH (s)-[r]->(n) WHERE r.extractor IN ['wikilink', 'frontmatter']
  MERGE (u:Unresolved {vault: $vault, key: r.target}) ON CREATE SET u.name = r.target
  CREATE (s)-[moved:$(type(r))]->(u)
  SET moved = properties(r)
  WITH r, u, r.target AS key
  DELETE r
  RETURN collect(DISTINCT key) AS keys, collect(DISTINCT elementId(u)) AS ids
}
WITH n, n.path AS path, keys, ids
DETACH DELETE n
WITH count(*) AS deleted, collect(path) AS paths, collect(keys) AS keys, collect(ids) AS ids
RETURN deleted, paths, reduce(acc = [], k IN keys | acc + k) AS keys,
       reduce(acc = [], i IN ids | acc + i) AS placeholders
