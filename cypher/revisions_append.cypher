// Append revision records: what an ingest, rename, delete or mention rewrite changed per note,
// and renew the vault's generation (a fresh token on its NameStamp: what retrieval caches
// between questions is valid while it stays the same; vault_generation.cypher).
// Parameters: $vault (str), $write (map: revisions (list of maps: path, kind ('upsert' |
//             'delete' | 'rename' | 'mentions' | 'extract'), old_hash (str or null), new_hash
//             (str or null), added (list<str>), removed (list<str>), asserted (list<str>, every
//             fact the note asserts now), renamed_from (str or null)), token (str or null: set
//             when the write changed the vault's note names, the token other processes' name
//             caches are checked against)). One map, so one plan: Neo4j's plan cache tells an
//             empty list from a filled one, and a null from a string, but not what a map holds.
// Returns: written (int)
// Planned once per server: it creates its nodes and reads only the vault's one NameStamp, so
// no plan is better on a larger graph, and a sync growing the graph does not have it planned
// again on the way (planning it costs more than running a batch of it).
CYPHER replan=skip
UNWIND $write.revisions AS v
CREATE (r:Revision {vault: $vault, path: v.path, kind: v.kind, at: datetime(),
                    old_hash: v.old_hash, new_hash: v.new_hash, added: v.added,
                    removed: v.removed, asserted: v.asserted, renamed_from: v.renamed_from})
WITH count(r) AS written
MERGE (s:NameStamp {vault: $vault})
SET s.generation = randomUUID(), s.token = coalesce($write.token, s.token)
RETURN written
