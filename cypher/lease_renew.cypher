// Renew the lease of a vault for the holder that has it, and for no one else: a lease that
// lapsed and was taken by another holder (or given back) stays lost.
// A live re-embedding of the database (the guard's lease, held by another) ends it too.
// Parameters: $vault (str), $guard (str: the re-embedding's lease, graph/reembed_guard.py),
//             $holder (str), $ttl_s (int), $status (map: mode, watches, …, and stated (int:
//             when this holder's process made the status, graph/lease.py))
// Returns: holder, host, pid, mode, watches (bool or null), folder (str or null: a watcher's),
//          folder_id (str or null), heartbeat_at (of whoever holds it
//          now; null when no one does), expires_at (the same), process_ns (str or null), ok (bool: renewed for $holder), reembed (map of the
//          live re-embedding's lease, holder, host, pid, mode and heartbeat_at, or null); no
//          row when the lease was deleted while this waited for its lock (no one holds it)
// The node's write lock before its holder is read: a renewal racing a writer that takes the
// lapsed lease would otherwise read its own holder, wait, and extend the other's lease as ok.
OPTIONAL MATCH (l:Lease {vault: $vault})
FOREACH (locked IN CASE WHEN l IS NULL THEN [] ELSE [l] END |
  SET locked._lock = true
  REMOVE locked._lock)
// The guard only read, not locked, and only once this lease's lock is held: a re-embedding
// locks every lease before it reads them (lease_reembed_acquire), so it either took the guard
// before this lock (read live here: refused) or reads this lease after this renewal (live:
// it is refused). So the watchers of many vaults, renewing every few seconds, wait for no one.
WITH l
OPTIONAL MATCH (g:Lease {vault: $guard})
WITH g, l, coalesce(g.expires_at >= datetime() AND g.holder <> $holder, false) AS guarded
// A status made before the one the lease states is not stated again: the users of one holder
// (the API's note writes and extraction passes) renew it each with their own, and a renewal
// sent before another user's take may commit after it (it still extends the lease).
WITH g, l, guarded, coalesce(l.stated > $status.stated, false) AS stale
CALL (l, guarded, stale) {
  WITH l WHERE NOT guarded AND l IS NOT NULL AND l.holder = $holder
  SET l.heartbeat_at = datetime(), l.expires_at = datetime() + duration({seconds: $ttl_s}),
      l += CASE WHEN stale THEN {} ELSE $status END
  RETURN true AS ok
  UNION
  WITH l WHERE guarded OR l IS NULL OR l.holder <> $holder
  RETURN false AS ok
}
RETURN ok, l.holder AS holder, l.host AS host, l.pid AS pid, l.mode AS mode,
       l.watches AS watches, l.folder AS folder, l.folder_id AS folder_id,
       l.heartbeat_at AS heartbeat_at, l.expires_at AS expires_at, l.process_ns AS process_ns,
       CASE WHEN guarded THEN g {.holder, .host, .pid, .mode, heartbeat_at: toString(g.heartbeat_at)}
       END AS reembed
