// The current lease of a vault and the watcher status its holder reports.
// Parameters: $vault (str)
// Returns: lease (map of properties, temporal values as strings), live (bool)
MATCH (l:Lease {vault: $vault})
RETURN l {.*, acquired_at: toString(l.acquired_at), heartbeat_at: toString(l.heartbeat_at),
          expires_at: toString(l.expires_at)} AS lease,
       l.expires_at >= datetime() AS live
