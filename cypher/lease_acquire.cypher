// Take or renew the one-writer lease of a vault, unless another live holder has it.
// Parameters: $vault (str), $guard (str: the reserved name of the lease `knotwork reembed`
//             holds over every vault of the database, graph/reembed_guard.py), $holder (str,
//             unique per writer; the API's writers share one), $host (str), $pid (int), $ttl_s (int, seconds until the lease lapses without
//             renewal), $status (map: mode, watches (bool: the holder follows the files), process_ns
//             (str or null: where the holder runs, graph/lease_gone.py), and a
//             watcher's folder (str) and folder_id (str, device:inode: REST writes are left to
//             it only by a server of that folder), queue, lag_ms, last_event_at (str or null),
//             events, …, and stated (int: when this holder's process made the status: a
//             status made before the one the lease states is not stated again, as in
//             lease_renew.cypher))
// Returns: ok (bool), holder, host, pid, mode, watches (bool or null: from before it was
//          recorded), folder (str or null: a watcher's), folder_id (str or null), heartbeat_at
//          (of whoever holds it), expires_at (of whoever holds it), process_ns (str or null: where the holder runs,
//          graph/lease_gone.py), reembed (map of the live re-embedding's
//          lease, holder, host, pid, mode and heartbeat_at, when one refuses it, else null); no
//          row when the lease was given back while this waited for its lock (it is free: run it
//          again)
// The guard's write lock first, by every writer of every vault: a writer taking its lease and a
// re-embedding taking the guard are one at a time, so neither misses the other. Locking every
// lease (as lease_reembed_acquire does, for the renewals that take no guard lock) would not do
// here: a take may make its vault's lease node, which no lock of the re-embedding's can reach
// before this commits.
MERGE (g:Lease {vault: $guard})
ON CREATE SET g.expires_at = datetime() - duration('PT1S')
SET g._lock = true
REMOVE g._lock
WITH g, coalesce(g.expires_at >= datetime() AND g.holder <> $holder, false) AS guarded
MERGE (l:Lease {vault: $vault})
ON CREATE SET l.holder = $holder, l.expires_at = datetime() - duration('PT1S')
// The node's write lock before its holder is read: two writers taking a lapsed lease at once
// would otherwise both read it free and both be told ok (the later SET waits, then overwrites).
SET l._lock = true
REMOVE l._lock
WITH g, guarded, l, (NOT guarded AND (l.holder = $holder OR l.expires_at < datetime())) AS free,
     coalesce(l.holder = $holder AND l.stated > $status.stated, false) AS stale
CALL (l, free, stale) {
  WITH l WHERE free
  SET l.holder = $holder, l.host = $host, l.pid = $pid,
      l.acquired_at = CASE WHEN l.holder = $holder AND l.acquired_at IS NOT NULL
                           THEN l.acquired_at ELSE datetime() END,
      l.heartbeat_at = datetime(), l.expires_at = datetime() + duration({seconds: $ttl_s}),
      l += CASE WHEN stale THEN {} ELSE $status END
  RETURN true AS ok
  UNION
  WITH l WHERE NOT free
  RETURN false AS ok
}
RETURN ok, l.holder AS holder, l.host AS host, l.pid AS pid, l.mode AS mode,
       l.watches AS watches, l.folder AS folder, l.folder_id AS folder_id,
       l.heartbeat_at AS heartbeat_at, l.expires_at AS expires_at, l.process_ns AS process_ns,
       CASE WHEN guarded THEN g {.holder, .host, .pid, .mode, heartbeat_at: toString(g.heartbeat_at)}
       END AS reembed
