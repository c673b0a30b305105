// The end of a write transaction, in one round trip: delete the entities and Unresolved
// placeholders nothing refers to any more (similarity edges are derived and keep no entity
// alive); name the placeholders still standing from the links that point at them now; append
// the revision records and renew the vault's generation; record a change of the vault's note
// names under a fresh token. Each part does nothing when its parameter is empty.
// Placeholder names: the smallest of the links' spellings (target_text) by code point, so
// capitals first ([[Ben]] before [[ben]]), the same rule as for notes whose paths differ only
// by case: the name depends on the links the folder holds, never on which was written first;
// a placeholder no spelling reaches keeps its key. The generation (a fresh token on the
// vault's NameStamp) is what retrieval caches between questions are valid under
// (vault_generation.cypher); the names token is what a process caches the vault's names under
// (names_stamp.cypher, graph/names.py).
// Parameters: $ids (list<str>, element ids of nodes that lost or gained a relationship:
//             orphan candidates and placeholders to name again; other nodes are skipped),
//             $vault (str), $revisions (list of maps: path, kind ('upsert' | 'delete' |
//             'rename' | 'mentions' | 'extract'), old_hash (str or null), new_hash (str or
//             null), added (list<str>), removed (list<str>), asserted (list<str>, every fact
//             the note asserts now), renamed_from (str or null)), $token (str: the names'
//             new token, or '' when the batch left the names as they were)
// Returns: written (int, revisions appended)
// Planned once per server: every node it reads is found by a unique key or element id, or is
// created, so no plan is better on a larger graph, and a sync growing the graph does not have
// it planned again on the way (planning it costs more than running a batch of it).
CYPHER replan=skip
CALL () {
  UNWIND $ids AS id
  MATCH (x) WHERE elementId(x) = id AND (x:Entity OR x:Unresolved)
    AND NOT EXISTS { MATCH (x)-[r]-() WHERE NOT r:SIMILAR_TO }
  DETACH DELETE x
}
CALL () {
  UNWIND $ids AS id
  MATCH (u:Unresolved) WHERE elementId(u) = id
  CALL (u) {
    OPTIONAL MATCH (u)<-[r]-() WHERE r.target_text IS NOT NULL
    RETURN min(r.target_text) AS spelling
  }
  WITH u, coalesce(spelling, u.key) AS name
  WHERE u.name IS NULL OR u.name <> name
  SET u.name = name
}
CALL () {
  UNWIND $revisions AS v
  CREATE (:Revision {vault: $vault, path: v.path, kind: v.kind, at: datetime(),
                     old_hash: v.old_hash, new_hash: v.new_hash, added: v.added,
                     removed: v.removed, asserted: v.asserted, renamed_from: v.renamed_from})
}
CALL () {
  WITH $revisions AS revisions WHERE size(revisions) > 0
  MERGE (s:NameStamp {vault: $vault})
  SET s.generation = randomUUID()
}
CALL () {
  WITH $token AS token WHERE token <> ''
  MERGE (s:NameStamp {vault: $vault})
  SET s.token = token
}
RETURN size($revisions) AS written
