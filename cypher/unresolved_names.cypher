// Name the given Unresolved placeholders from the links that point at them now: the smallest of
// the links' spellings by code point, so capitals first ([[Ben]] before [[ben]]), the same rule
// as for notes whose paths differ only by case. A link spells it as written (target_text), a
// relative one by the path it names (target_name: "People/Ben" of "../People/Ben"). The name
// depends on the links the folder holds, never on which was written first; a placeholder no
// spelling reaches keeps its key. Run after a batch's link writes, moves and deletes, in the
// same transaction.
// Without reading every link of a placeholder many notes link to: before the batch its name was
// its links' smallest spelling, so while some link still spells it, the name now is the
// smallest of it and the spellings the batch's links brought that some link still holds. Only a
// placeholder whose name no link spells any more (or that never had a spelling) reads them all.
// Parameters: $placeholders (list of maps: id (element id of a candidate; other nodes are
//             skipped), added (list<str>, the spellings of the links it gained in this
//             transaction: every one, or the name may come out too large))
// Returns: named (int, placeholders whose name changed)
// Planned once per server: every node it reads is found by a unique key or element id,
// so no plan is better on a larger graph, and a sync growing the graph does not have it
// planned again on the way (planning it costs more than running a batch of it).
CYPHER replan=skip
UNWIND $placeholders AS p
MATCH (u:Unresolved) WHERE elementId(u) = p.id
WITH u, p, u.name IS NOT NULL
  AND EXISTS { MATCH (u)<-[r]-() WHERE coalesce(r.target_name, r.target_text) = u.name } AS held
// Grouped by u, so that the branch not taken gives no row (not one of null).
CALL (u, p, held) {
  WITH u, p WHERE held
  UNWIND [u.name] + p.added AS spelling
  WITH u, spelling
  WHERE spelling = u.name
     OR EXISTS { MATCH (u)<-[r]-() WHERE coalesce(r.target_name, r.target_text) = spelling }
  WITH u, min(spelling) AS lowest
  RETURN lowest
  UNION ALL
  WITH u WHERE NOT held
  OPTIONAL MATCH (u)<-[r]-()
  WITH u, min(coalesce(r.target_name, r.target_text)) AS lowest
  RETURN lowest
}
WITH u, coalesce(lowest, u.key) AS name
WHERE u.name IS NULL OR u.name <> name
SET u.name = name
RETURN count(u) AS named
