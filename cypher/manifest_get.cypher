// The manifest that binds this graph to the configuration that produced it.
// Parameters: none
// Returns: manifest (map of the Manifest node's properties); no row when there is none
MATCH (m:Manifest {key: 'knotwork'})
RETURN properties(m) AS manifest
