// Name the given Unresolved placeholders from the links that point at them now: the smallest of
// the links' spellings (target_text) by code point, so capitals first ([[Ben]] before [[ben]]),
// the same rule as for notes whose paths differ only by case. The name depends on the links the
// folder holds, never on which was written first; a placeholder no spelling reaches keeps its
// key. Run after a batch's link writes, moves and deletes, in the same transaction.
// Parameters: $ids (list<str>, element ids of candidates; other nodes are skipped)
// Returns: named (int, placeholders whose name changed)
// Planned once per server: every node it reads is found by a unique key or element id,
// so no plan is better on a larger graph, and a sync growing the graph does not have it
// planned again on the way (planning it costs more than running a batch of it).
CYPHER replan=skip
UNWIND $ids AS id
MATCH (u:Unresolved) WHERE elementId(u) = id
CALL (u) {
  OPTIONAL MATCH (u)<-[r]-() WHERE r.target_text IS NOT NULL
  RETURN min(r.target_text) AS spelling
}
WITH u, coalesce(spelling, u.key) AS name
WHERE u.name IS NULL OR u.name <> name
SET u.name = name
RETURN count(u) AS named
