// Give the lease back (only its holder can).
// Parameters: $vault (str), $holder (str)
// Returns: released (int)
// The node's write lock before its holder is read: a give-back racing a writer that takes the
// lapsed lease would otherwise delete the new holder's lease. No guard lock: a give-back only
// ends a lease, and a re-embedding that still reads it live is refused, as it would have been.
MATCH (l:Lease {vault: $vault})
SET l._lock = true
REMOVE l._lock
WITH l WHERE l.holder = $holder
DELETE l
RETURN count(*) AS released
