// Give the lease back (only its holder can).
// Parameters: $vault (str), $holder (str)
// Returns: released (int)
MATCH (l:Lease {vault: $vault, holder: $holder})
DELETE l
RETURN count(*) AS released
