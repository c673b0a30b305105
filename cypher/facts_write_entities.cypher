// Write facts whose object is an entity (attachments, keyed by file name; frontmatter values,
// aliases, tags, model triples).
// The subject is the asserting note, or for model triples the entity named by subject_key.
// Parameters: $vault (str), $facts (list of maps: relation (from the fixed vocabulary, checked
//             before), object_name, object_mkey (mention key of the name, or null),
//             subject_name (or null; names NFC), props (map of relationship properties, including
//             source = the asserting note's path, target = object key, subject = subject key,
//             target_text = an attachment's path or an alias as written, when kept))
// Returns: written (int)
// Planned once per server: every node it reads is found by a unique key or element id,
// so no plan is better on a larger graph, and a sync growing the graph does not have it
// planned again on the way (planning it costs more than running a batch of it).
CYPHER replan=skip
UNWIND $facts AS f
MATCH (n:Note {vault: $vault, path: f.props.source})
MERGE (o:Entity {vault: $vault, key: f.props.target}) ON CREATE SET o.name = f.object_name, o.embedding_state = 'pending'
SET o.mkey = f.object_mkey
// A name stored decomposed before names were stored NFC (rows.py FACTS_RULES 12) is composed
// (and embedded again) when next written: the full-text index is searched composed.
FOREACH (_ IN CASE WHEN o.name <> normalize(o.name) THEN [1] ELSE [] END |
  SET o.name = normalize(o.name), o.embedding_state = 'pending')
WITH n, f, o
CALL (n, f) {
  WITH n, f WHERE f.props.subject IS NULL
  RETURN n AS s
  UNION
  WITH f WHERE f.props.subject IS NOT NULL
  MERGE (e:Entity {vault: $vault, key: f.props.subject}) ON CREATE SET e.name = f.subject_name, e.embedding_state = 'pending'
  FOREACH (_ IN CASE WHEN e.name <> normalize(e.name) THEN [1] ELSE [] END |
    SET e.name = normalize(e.name), e.embedding_state = 'pending')
  RETURN e AS s
}
CREATE (s)-[r:$(f.relation)]->(o)
SET r = f.props, r.recorded_at = datetime()
RETURN count(r) AS written
