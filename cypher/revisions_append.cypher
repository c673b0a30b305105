// Append revision records: what an ingest, rename, delete or mention rewrite changed per note,
// and renew the vault's generation (a fresh token on its NameStamp: what retrieval caches
// between questions is valid while it stays the same; vault_generation.cypher).
// A rename's record (renamed_from set) is written at the new path, and a closing one at the
// old path (kind 'renamed', renamed_to the new path, asserted []), at the same time: what the
// old path asserted after the rename is nothing. Not when the batch writes a record at the old
// path too (a note written or moved there): that one is the path's newest.
// Parameters: $vault (str), $write (map: revisions (list of maps: path, kind ('upsert' |
//             'delete' | 'rename' | 'mentions' | 'extract'), old_hash (str or null), new_hash
//             (str or null), added (list<str>), removed (list<str>), asserted (list<str>, every
//             fact the note asserts now), renamed_from (str or null)), token (str or null: set
//             when the write changed the vault's note names, the token other processes' name
//             caches are checked against)). One map, so one plan: Neo4j's plan cache tells an
//             empty list from a filled one, and a null from a string, but not what a map holds.
// Returns: written (int: the records in $write.revisions)
// Planned once per server: it creates its nodes and reads only the vault's one NameStamp, so
// no plan is better on a larger graph, and a sync growing the graph does not have it planned
// again on the way (planning it costs more than running a batch of it).
CYPHER replan=skip
WITH [x IN $write.revisions | x.path] AS paths
UNWIND $write.revisions AS v
CREATE (r:Revision {vault: $vault, path: v.path, kind: v.kind, at: datetime(),
                    old_hash: v.old_hash, new_hash: v.new_hash, added: v.added,
                    removed: v.removed, asserted: v.asserted, renamed_from: v.renamed_from})
FOREACH (_ IN CASE WHEN v.renamed_from IS NULL OR v.renamed_from IN paths THEN [] ELSE [1] END |
  CREATE (:Revision {vault: $vault, path: v.renamed_from, kind: 'renamed', at: r.at,
                     old_hash: v.old_hash, new_hash: null, added: [], removed: [],
                     asserted: [], renamed_to: v.path}))
WITH count(r) AS written
MERGE (s:NameStamp {vault: $vault})
SET s.generation = randomUUID(), s.token = coalesce($write.token, s.token)
RETURN written
