// Delete note placeholders (a note named by a mention or link before its own batch was
// written) that were never written, e.g. when their batch failed: nothing may point at a note
// that is not. Their links are first moved to an Unresolved placeholder of the link's key, for
// links_reresolve.cypher to move on to another note the key names, if any. Mentions of them
// are deleted, each returned with the note that asserted it, for that note's revision.
// Parameters: $vault (str)
// Returns: deleted (int), paths (list<str>, the placeholders' paths), keys (list<str>, link
//          keys moved), placeholders (list<str>, element ids of the Unresolved placeholders
//          that gained links: to name again), spelled (list of maps: id, spelling, how the
//          links they gained spell them, as in unresolved_names.cypher), lost (list of maps:
//          path (the mentioning note), fact (as notes_facts.cypher gives a fact))
MATCH (n:Note {vault: $vault}) WHERE n.path IS NOT NULL AND n.content_hash IS NULL
CALL (n) {
  MATCH (s)-[r]->(n) WHERE r.extractor IN ['wikilink', 'frontmatter']
  MERGE (u:Unresolved {vault: $vault, key: r.target}) ON CREATE SET u.name = r.target
  CREATE (s)-[moved:$(type(r))]->(u)
  SET moved = properties(r)
  WITH r, u, r.target AS key,
       CASE WHEN coalesce(r.target_name, r.target_text) IS NOT NULL
            THEN {id: elementId(u), spelling: coalesce(r.target_name, r.target_text)}
       END AS spelled
  DELETE r
  RETURN collect(DISTINCT key) AS keys, collect(DISTINCT elementId(u)) AS ids,
         collect(DISTINCT spelled) AS spelled
}
CALL (n) {
  MATCH (:Note)-[r:MENTIONS]->(n) WHERE r.extractor = 'mention'
  WITH r, {path: r.source,
           fact: {relation: type(r), subject: r.subject, target: r.target,
                  extractor: r.extractor, line: r.line, predicate: r.predicate,
                  chunk_id: r.chunk_id}} AS lost
  DELETE r
  RETURN collect(lost) AS lost
}
WITH n, n.path AS path, keys, ids, spelled, lost
DETACH DELETE n
WITH count(*) AS deleted, collect(path) AS paths, collect(keys) AS keys, collect(ids) AS ids,
     collect(spelled) AS spelled, collect(lost) AS lost
RETURN deleted, paths, reduce(acc = [], k IN keys | acc + k) AS keys,
       reduce(acc = [], i IN ids | acc + i) AS placeholders,
       reduce(acc = [], s IN spelled | acc + s) AS spelled,
       reduce(acc = [], l IN lost | acc + l) AS lost
