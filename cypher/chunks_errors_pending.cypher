// Chunks whose model extraction is recorded as an error (garbage answered twice, or the
// request refused itself, as a prompt too long for the context) go back to pending, their tries
// counted from none: `knotwork retry --errors`, once the model or its context was changed. The
// last error stays on the chunk until an extraction succeeds.
// Parameters: $vault (str)
// Returns: updated (int, the chunks put back)
MATCH (c:Chunk)
WHERE c.vault = $vault AND c.extraction_state = 'error'
SET c.extraction_state = 'pending', c.extraction_tries = 0
RETURN count(c) AS updated
