// Give the re-embedding's lease back (only its holder can): lapsed, not deleted, as every
// writer's lease_acquire locks the node first and a deleted one would be made again.
// Parameters: $guard (str), $holder (str)
// Returns: released (int)
MATCH (g:Lease {vault: $guard})
SET g._lock = true
REMOVE g._lock
WITH g WHERE g.holder = $holder
SET g.expires_at = datetime() - duration('PT1S')
RETURN count(*) AS released
