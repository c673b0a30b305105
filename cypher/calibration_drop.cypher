// Forget a vault's relevance calibration, for every embedding model: notes are written into
// a vault holding none (ingest/plan.py), and the floor measured the notes it held before.
// Parameters: $vault (str)
// Returns: dropped (int)
OPTIONAL MATCH (k:Calibration {vault: $vault})
DELETE k
RETURN count(k) AS dropped
