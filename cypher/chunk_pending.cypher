// Whether a chunk a retry pass read is still there, unchanged, and waiting for its extraction:
// a pass reads its chunks before it asks the model about each, and the watcher writes beside
// it, so a note edited, moved or deleted meanwhile has its old chunks asked about for nothing
// (a minute each, for a model on a CPU).
// Parameters: $id (str), $hash (str)
// Returns: pending (bool)
OPTIONAL MATCH (c:Chunk {id: $id, hash: $hash})
RETURN c IS NOT NULL AND c.extraction_state = 'pending' AS pending
