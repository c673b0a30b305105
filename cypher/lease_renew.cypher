// Renew the lease of a vault for the holder that has it, and for no one else: a lease that
// lapsed and was taken by another holder (or given back) stays lost.
// Parameters: $vault (str), $holder (str), $ttl_s (int), $status (map: mode, watches, …)
// Returns: holder, host, pid, mode, heartbeat_at (of whoever holds it now; no row when no
//          one does), ok (bool: renewed for $holder)
OPTIONAL MATCH (l:Lease {vault: $vault})
CALL (l) {
  WITH l WHERE l IS NOT NULL AND l.holder = $holder
  SET l.heartbeat_at = datetime(), l.expires_at = datetime() + duration({seconds: $ttl_s}),
      l += $status
  RETURN true AS ok
  UNION
  WITH l WHERE l IS NULL OR l.holder <> $holder
  RETURN false AS ok
}
RETURN ok, l.holder AS holder, l.host AS host, l.pid AS pid, l.mode AS mode,
       l.heartbeat_at AS heartbeat_at
