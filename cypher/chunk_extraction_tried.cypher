// A model call about one chunk that failed: the chunk goes behind the others in the queue of
// pending work (chunks_pending.cypher asks the never-tried, then the longest-waiting first),
// so one chunk the model cannot finish (a time-out on a slow machine) no longer holds back
// the chunks after it. A failure about the chunk itself ($counted: the request refused, as a
// prompt too long for the model's context is) counts one try against the chunk's text; after
// $max its extraction is recorded as an error under $model, as an answer that does not fit is
// (kept while the note is rewritten under that model). A chunk whose text changed counts again.
// Parameters: $id (str), $hash (str, the chunk's text hash as tried), $error (str), $counted
//             (bool), $max (int), $model (str, the chat model and extractor version)
// Returns: tries (int, counted for this text), state (str, 'pending' or 'error'); no row
//          when the chunk is gone or changed
MATCH (c:Chunk {id: $id, hash: $hash})
WITH c, CASE WHEN c.extraction_tried = $hash THEN coalesce(c.extraction_tries, 0) ELSE 0 END
        + CASE WHEN $counted THEN 1 ELSE 0 END AS tries
WITH c, tries, $counted AND tries >= $max AS failed
SET c.extraction_tried = $hash, c.extraction_tries = tries, c.extraction_tried_at = timestamp(),
    c.extraction_error = $error,
    c.extraction_state = CASE WHEN failed THEN 'error' ELSE c.extraction_state END,
    c.extraction_model = CASE WHEN failed THEN $model ELSE c.extraction_model END
RETURN tries, c.extraction_state AS state
