// The manifest that binds this graph to the configuration that produced it, and the live
// re-embedding's lease, if any (a re-embedding under way is not one interrupted).
// Parameters: $guard (str: the re-embedding's lease, graph/reembed_guard.py)
// Returns: manifest (map of the Manifest node's properties), reembed (map: holder, host, pid of
//          the live re-embedding, or null); no row when there is none
MATCH (m:Manifest {key: 'knotwork'})
OPTIONAL MATCH (g:Lease {vault: $guard})
WHERE g.expires_at >= datetime()
RETURN properties(m) AS manifest, g {.holder, .host, .pid} AS reembed
