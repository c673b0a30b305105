// The scratch vaults `verify` parses a folder into (check/verify.py) that the graph holds:
// found by their lease, which a verify takes before it writes, or by their notes or name stamp
// (those an older version left hold no lease).
// Parameters: $prefix (str, the scratch vaults' name prefix)
// Returns: vault (str, one row each)
CALL () {
  MATCH (l:Lease) WHERE l.vault STARTS WITH $prefix
  RETURN l.vault AS vault
  UNION
  MATCH (n:Note) WHERE n.vault STARTS WITH $prefix AND n.path IS NOT NULL
  RETURN n.vault AS vault
  UNION
  MATCH (s:NameStamp) WHERE s.vault STARTS WITH $prefix
  RETURN s.vault AS vault
}
RETURN vault ORDER BY vault
