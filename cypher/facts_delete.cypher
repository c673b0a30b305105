// Delete every fact the given notes assert (structural and model-extracted) and their chunks'
// entity links, so the notes can be written anew. Nothing another note asserts is touched,
// but each note they mentioned is mentioned by one note fewer per note here that mentioned it
// (Note.mentioned_by, kept by what changed, the target locked first; as in
// mentions_write.cypher).
// With $incoming, also the link keys by which other notes' facts point at the notes, read in
// the same round trip: the notes are going, and those links are re-resolved before they go;
// and the other notes' mentions of them (notes not in $paths) are deleted, each returned with
// the note that asserted it: that note's revision records it removed (a mention has nowhere
// else to go, and left to the notes' DETACH DELETE it would vanish from no revision).
// The facts deleted come back per note, as notes_facts.cypher gives them: what each note
// asserted before the write, for its revision, without a round trip of its own.
// Parameters: $vault (str), $paths (list<str>), $incoming (bool)
// Returns: touched (list of element ids of the entities and Unresolved placeholders that lost a
//          relationship and hold none now: orphan candidates),
//          placeholders (list of element ids of the Unresolved placeholders that lost a link and
//          hold others, none spelled as the placeholder's name: to name again),
//          keys (list<str>, the incoming link keys; empty without $incoming),
//          lost (list of maps: path (the mentioning note), fact (as in facts); empty without
//          $incoming),
//          facts (list of maps: path, facts (list of maps as notes_facts.cypher returns them);
//          a note that asserted nothing has an empty list)
// Planned once per server: every node it reads is found by a unique key or by expanding
// from one, so no plan is better on a larger graph; not planned again when the statistics
// catch up after a bulk write (the first edit or delete after a sync would pay for it).
CYPHER replan=skip
UNWIND $paths AS path
MATCH (n:Note {vault: $vault, path: path})
CALL (n, path) {
  WITH n, path WHERE $incoming
  MATCH (n)<-[r]-()
  WHERE r.source <> path AND r.extractor IN ['wikilink', 'frontmatter']
  RETURN collect(DISTINCT r.target) AS keys
}
CALL (n, path) {
  WITH n, path WHERE $incoming
  MATCH (n)<-[r:MENTIONS]-(:Note)
  WHERE r.extractor = 'mention' AND NOT r.source IN $paths
  WITH r, {path: r.source,
           fact: {relation: type(r), subject: r.subject, target: r.target,
                  extractor: r.extractor, line: r.line, predicate: r.predicate,
                  chunk_id: r.chunk_id}} AS lost
  DELETE r
  RETURN collect(lost) AS lost
}
CALL (n, path) {
  MATCH (n)-[r]->(o) WHERE r.source = path
  WITH r, o, type(r) = 'MENTIONS' AND r.extractor = 'mention' AS mention,
       {relation: type(r), subject: r.subject, target: r.target, extractor: r.extractor,
        line: r.line, predicate: r.predicate, chunk_id: r.chunk_id,
        target_text: r.target_text, heading: r.heading, block: r.block} AS fact
  DELETE r
  RETURN collect(DISTINCT CASE WHEN o:Entity OR o:Unresolved THEN o END) AS own,
         collect(DISTINCT CASE WHEN mention THEN o END) AS targets, collect(fact) AS own_facts
}
CALL (n, path) {
  MATCH (n)-[:HAS_CHUNK]->(:Chunk)-[:HAS_ENTITY]->(s:Entity)-[r]->(o) WHERE r.source = path
  WITH DISTINCT r, s, CASE WHEN o:Entity OR o:Unresolved THEN o END AS o
  WITH r, s, o,
       {relation: type(r), subject: r.subject, target: r.target, extractor: r.extractor,
        line: r.line, predicate: r.predicate, chunk_id: r.chunk_id,
        target_text: r.target_text, heading: r.heading, block: r.block} AS fact
  DELETE r RETURN collect(s) + collect(o) AS model, collect(fact) AS model_facts
}
CALL (n) {
  MATCH (n)-[:HAS_CHUNK]->(:Chunk)-[h:HAS_ENTITY]->(e)
  DELETE h RETURN collect(e) AS mentioned
}
// Every note's facts are gone before any count changes.
WITH collect(own + model + mentioned) AS lists, collect(targets) AS targets, collect(keys) AS keys,
     collect({path: path, facts: own_facts + model_facts}) AS facts, collect(lost) AS lost
CALL (targets) {
  UNWIND targets AS some
  UNWIND some AS m
  WITH m, count(*) AS fewer
  SET m._lock = true
  WITH m, fewer
  // A note never counted (a graph written before the count was kept) is counted whole.
  SET m.mentioned_by = CASE WHEN m.mentioned_by IS NULL
                            THEN COUNT { MATCH (x:Note)-[r:MENTIONS]->(m)
                                         WHERE r.extractor = 'mention' RETURN DISTINCT x }
                            ELSE m.mentioned_by - fewer END
  REMOVE m._lock
}
// What the notes' facts pointed at, once they are all gone: only what holds no relationship
// now may be an orphan (orphans_delete.cypher's test), and only a placeholder whose name no
// link spells any more may need another (unresolved_names.cypher's); the rest stays as it is
// unless a later write of the transaction changes it, and that write lists it then.
WITH keys, facts, lost, COLLECT { UNWIND lists AS some UNWIND some AS x RETURN DISTINCT x } AS nodes
RETURN [x IN nodes WHERE NOT EXISTS { MATCH (x)-[r]-() WHERE NOT r:SIMILAR_TO }
        | elementId(x)] AS touched,
       [u IN nodes WHERE u:Unresolved AND EXISTS { MATCH (u)--() }
          AND (u.name IS NULL OR NOT EXISTS {
            MATCH (u)<-[r]-() WHERE coalesce(r.target_name, r.target_text) = u.name })
        | elementId(u)] AS placeholders,
       COLLECT { UNWIND keys AS some UNWIND some AS key RETURN DISTINCT key } AS keys,
       facts, COLLECT { UNWIND lost AS some UNWIND some AS l RETURN l } AS lost
