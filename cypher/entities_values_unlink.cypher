// Entities whose names are values (ingest/values.py), not names: they hold no name vector
// and no SIMILAR_TO edge, and their embedding reads as done, as nothing is owed them. Edges
// taken away renew the vault's generation, as new ones do (entity_similar_link.cypher): a
// walk retrieval kept must lose them. $names: entities whose names are names; one an earlier
// rule took for a value (done, with no vector) is owed its vector again (pending, read by
// entities_pending.cypher). With $stamp, the vault's NameStamp records the pass over its
// entities at $version as done (entities_values_page.cypher).
// Parameters: $vault (str), $keys (list<str>, entity keys), $names (list<str>, entity keys),
//             $stamp (bool), $version (int)
// Returns: updated (int, the SIMILAR_TO edges taken away)
CALL () {
  UNWIND $names AS key
  MATCH (e:Entity {vault: $vault, key: key})
  WHERE e.embedding_state = 'done' AND e.embedding IS NULL
  SET e.embedding_state = 'pending'
}
CALL () {
  UNWIND $keys AS key
  MATCH (e:Entity {vault: $vault, key: key})
  SET e.embedding_state = 'done'
  REMOVE e.embedding, e.embedding_refused_at
  WITH e
  OPTIONAL MATCH (e)-[s:SIMILAR_TO]-()
  WITH DISTINCT s WHERE s IS NOT NULL
  DELETE s
  RETURN count(s) AS unlinked
}
FOREACH (_ IN CASE WHEN unlinked > 0 OR $stamp THEN [1] ELSE [] END |
  MERGE (stamp:NameStamp {vault: $vault})
  FOREACH (_ IN CASE WHEN unlinked > 0 THEN [1] ELSE [] END |
    SET stamp.generation = randomUUID())
  FOREACH (_ IN CASE WHEN $stamp THEN [1] ELSE [] END |
    SET stamp.values_unlinked = $version))
RETURN unlinked AS updated
