// Take (or renew) the lease `knotwork reembed` holds over every vault of the database, unless
// another live holder has it or any vault's lease is live (save the re-embedding's own).
// Parameters: $guard (str: the lease's reserved name), $holder (str: the re-embedding's holder,
//             the same as of its own vault's lease), $host (str), $pid (int), $ttl_s (int),
//             $status (map: mode, watches)
// Returns: ok (bool), holders (list of maps: vault, holder, host, pid, mode, watches,
//          heartbeat_at (str) of each live lease that refuses it, another re-embedding's too)
// The guard's write lock first: every writer takes it before its own lease (lease_acquire), so
// none takes one between this read of the leases and this write.
MERGE (g:Lease {vault: $guard})
ON CREATE SET g.expires_at = datetime() - duration('PT1S')
SET g._lock = true
REMOVE g._lock
WITH g
OPTIONAL MATCH (l:Lease)
WHERE l.expires_at >= datetime() AND l.holder <> $holder AND l <> g
WITH g, collect(l {.vault, .holder, .host, .pid, .mode, .watches,
                   heartbeat_at: toString(l.heartbeat_at)}) AS live
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
