// Renew the lease `knotwork reembed` holds over every vault, only while it is live and its
// own: one that lapsed stays lost even if no one took it, since a writer (or another
// re-embedding) may have written meanwhile.
// Parameters: $guard (str: the lease's reserved name), $holder (str), $ttl_s (int),
//             $status (map: mode, watches)
// Returns: ok (bool: renewed), holder, host, pid, mode, heartbeat_at (str) of whoever holds it
//          now (the lapsed holder's own when no one took it)
MERGE (g:Lease {vault: $guard})
ON CREATE SET g.expires_at = datetime() - duration('PT1S')
SET g._lock = true
REMOVE g._lock
WITH g, coalesce(g.holder = $holder AND g.expires_at >= datetime(), false) AS ours
CALL (g, ours) {
  WITH g WHERE ours
  SET g.heartbeat_at = datetime(), g.expires_at = datetime() + duration({seconds: $ttl_s}),
      g += $status
  RETURN true AS ok
  UNION
  WITH g WHERE NOT ours
  RETURN false AS ok
}
RETURN ok, g.holder AS holder, g.host AS host, g.pid AS pid, g.mode AS mode,
       toString(g.heartbeat_at) AS heartbeat_at
