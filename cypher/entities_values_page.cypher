// The next page of a vault's entities holding a name vector, or done with none (a value's),
// for the one pass per rule that takes values' vectors and SIMILAR_TO edges away and gives
// names an earlier rule took for values their vectors back (ingest/similar.py): none once the
// vault's NameStamp says that pass, at $version or later, is done. Every sync and write asks, so a
// vault done seeks no entity: the UNWIND gives the MATCH no row to run on (a `WHERE NOT done`
// is folded into the index seek's filter, which reads every entity of the vault).
// Parameters: $vault (str), $version (int, similar.VALUES_UNLINKED), $after (str: the last
//             key of the page before, '' for the first), $limit (int)
// Returns: done (bool: the pass at $version is over for this vault), entities (list of maps
//          of key and name, by key)
OPTIONAL MATCH (s:NameStamp {vault: $vault})
WITH coalesce(max(s.values_unlinked), 0) >= $version AS done
CALL (done) {
  UNWIND CASE WHEN done THEN [] ELSE [$vault] END AS vault
  MATCH (e:Entity {vault: vault})
  WHERE e.key > $after AND (e.embedding IS NOT NULL OR e.embedding_state = 'done')
  WITH e ORDER BY e.key
  LIMIT $limit
  RETURN collect(e {.key, .name}) AS entities
}
RETURN done, entities
