// Record a model extraction (or its failure) on a chunk, if the chunk still exists unchanged.
// Parameters: $id (str), $hash (str), $extraction (JSON str or null), $model (str or null),
//             $state ('done' | 'error' | 'pending'), $error (str or null)
// Returns: note_path (str), line_start (int: the chunk's first line now, which its model facts
//          carry); no row when the chunk is gone or changed
MATCH (c:Chunk {id: $id, hash: $hash})
SET c.extraction = $extraction, c.extraction_model = $model, c.extraction_state = $state,
    c.extraction_error = $error, c.extraction_tries = null  // an answer: refusals start over
RETURN c.note_path AS note_path, c.line_start AS line_start
