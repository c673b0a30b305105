// Take (or renew) the lease `knotwork reembed` holds over every vault of the database, unless
// another live holder has it or any vault's lease is live (save the re-embedding's own).
// Parameters: $guard (str: the lease's reserved name), $holder (str: the re-embedding's holder,
//             the same as of its own vault's lease), $host (str), $pid (int), $ttl_s (int),
//             $status (map: mode, watches)
// Returns: ok (bool), holders (list of maps: vault, holder, host, pid, mode, watches,
//          heartbeat_at (str) of each live lease that refuses it, another re-embedding's too)
// The guard's write lock first: every writer takes it before it takes (or makes) its own lease
// (lease_acquire), so none takes one between this read of the leases and this write.
MERGE (g:Lease {vault: $guard})
ON CREATE SET g.expires_at = datetime() - duration('PT1S')
SET g._lock = true
REMOVE g._lock
// Then every vault lease node's write lock, lapsed ones too, before any is read: a writer's
// renewal (lease_renew) takes no guard lock, and renewing a lapsed lease makes it live again.
// It reads the guard under its own lease's lock, so it either commits before this reads its
// lease (counted live here: refused) or reads the guard once this committed (it is refused).
WITH g
OPTIONAL MATCH (l:Lease)
WHERE l <> g
FOREACH (locked IN CASE WHEN l IS NULL THEN [] ELSE [l] END |
  SET locked._lock = true
  REMOVE locked._lock)
WITH g, collect(l) AS leases
WITH g, [l IN leases WHERE l.expires_at >= datetime() AND l.holder <> $holder |
         l {.vault, .holder, .host, .pid, .mode, .watches,
            heartbeat_at: toString(l.heartbeat_at)}] AS live
WITH g, live + CASE WHEN g.expires_at >= datetime() AND g.holder <> $holder
                    THEN [g {vault: null, .holder, .host, .pid, .mode, .watches,
                             heartbeat_at: toString(g.heartbeat_at)}]
                    ELSE [] END AS holders
CALL (g, holders) {
  WITH g WHERE size(holders) = 0
  SET g.holder = $holder, g.host = $host, g.pid = $pid, g.acquired_at = datetime(),
      g.heartbeat_at = datetime(), g.expires_at = datetime() + duration({seconds: $ttl_s}),
      g += $status
  RETURN true AS ok
  UNION
  WITH g WHERE size(holders) > 0
  RETURN false AS ok
}
RETURN ok, holders
