// Take or renew the one-writer lease of a vault, unless another live holder has it.
// Parameters: $vault (str), $holder (str, unique per writer; the API's writers share one),
//             $host (str), $pid (int), $ttl_s (int, seconds until the lease lapses without
//             renewal), $status (map: mode, watches (bool: the holder follows the files), and a
//             watcher's folder (str) and folder_id (str, device:inode: REST writes are left to
//             it only by a server of that folder), queue, lag_ms, last_event_at (str or null),
//             events, …)
// Returns: ok (bool), holder, host, pid, mode, watches (bool or null: from before it was
//          recorded), heartbeat_at (of whoever holds it); no row when the lease was given back
//          while this waited for its lock (it is free: run it again)
MERGE (l:Lease {vault: $vault})
ON CREATE SET l.holder = $holder, l.expires_at = datetime() - duration('PT1S')
// The node's write lock before its holder is read: two writers taking a lapsed lease at once
// would otherwise both read it free and both be told ok (the later SET waits, then overwrites).
SET l._lock = true
REMOVE l._lock
WITH l, (l.holder = $holder OR l.expires_at < datetime()) AS free
CALL (l, free) {
  WITH l WHERE free
  SET l.holder = $holder, l.host = $host, l.pid = $pid,
      l.acquired_at = CASE WHEN l.holder = $holder AND l.acquired_at IS NOT NULL
                           THEN l.acquired_at ELSE datetime() END,
      l.heartbeat_at = datetime(), l.expires_at = datetime() + duration({seconds: $ttl_s}),
      l += $status
  RETURN true AS ok
  UNION
  WITH l WHERE NOT free
  RETURN false AS ok
}
RETURN ok, l.holder AS holder, l.host AS host, l.pid AS pid, l.mode AS mode,
       l.watches AS watches, l.heartbeat_at AS heartbeat_at
