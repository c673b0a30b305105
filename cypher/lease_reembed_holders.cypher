// Read only: the live leases that would refuse `knotwork reembed` (lease_reembed_acquire), a
// look before its slow start (the model clients); its own vault's lease is the vault's check.
// Parameters: $guard (str: the re-embedding's lease), $vault (str: the re-embedding's vault),
//             $skip_mode (str: a holder that gives its lease back within moments)
// Returns: holders (list of maps: vault (null for another re-embedding), holder, host, pid,
//          mode, watches, heartbeat_at (str))
OPTIONAL MATCH (l:Lease)
WHERE l.expires_at >= datetime() AND l.vault <> $vault
  AND coalesce(l.mode, '') <> $skip_mode
RETURN collect(l {vault: CASE WHEN l.vault = $guard THEN null ELSE l.vault END, .holder, .host,
                  .pid, .mode, .watches, heartbeat_at: toString(l.heartbeat_at)}) AS holders
