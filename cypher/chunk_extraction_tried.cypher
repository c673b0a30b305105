// A model call about one chunk that failed for the chunk's sake (a time-out, a refusal), not
// for the model being out of reach: one more try counted against the chunk's text. After $max
// tries its extraction is recorded as an error, so a chunk the model cannot finish does not
// hold back the chunks after it for ever (chunks_pending.cypher asks the least-tried first).
// A chunk whose text changed since starts counting again.
// Parameters: $id (str), $hash (str, the chunk's text hash as tried), $error (str), $max (int)
// Returns: tries (int, for this text), state (str, 'pending' or 'error'); no row when the
//          chunk is gone or changed
MATCH (c:Chunk {id: $id, hash: $hash})
WITH c, CASE WHEN c.extraction_tried = $hash THEN coalesce(c.extraction_tries, 0) ELSE 0 END + 1
        AS tries
SET c.extraction_tried = $hash, c.extraction_tries = tries, c.extraction_error = $error,
    c.extraction_state = CASE WHEN tries >= $max THEN 'error' ELSE c.extraction_state END
RETURN tries, c.extraction_state AS state
