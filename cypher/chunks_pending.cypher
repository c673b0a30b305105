// Chunks of a vault still waiting for an embedding, or with $extract a model extraction.
// A chunk whose embedding the model refused at or after $asked_before (chunks_refused_stamp)
// is not asked again now: its embedding_state reads 'refused', and it comes only for its
// extraction, or last.
// Parameters: $vault (str), $extract (bool), $limit (int), $asked_before (int, milliseconds
//             since the epoch)
// Returns: id, hash, embed_hash (or the text hash for a chunk from before contexts), note_path, heading_path, context (str or null), text, line_start, embedding_state
//          ('pending': to embed now, 'refused', or 'done'), extraction_state
MATCH (c:Chunk)
WHERE c.vault = $vault
  AND (c.embedding_state = 'pending' OR ($extract AND c.extraction_state = 'pending'))
WITH c,
     c.embedding_state = 'pending' AND coalesce(c.embedding_refused_at, 0) < $asked_before AS ask,
     $extract AND c.extraction_state = 'pending' AS extract
RETURN c.id AS id, c.hash AS hash, coalesce(c.embed_hash, c.hash) AS embed_hash, c.note_path AS note_path, c.heading_path AS heading_path,
       c.context AS context,
       c.text AS text, c.line_start AS line_start,
       CASE WHEN ask THEN 'pending' WHEN c.embedding_state = 'pending' THEN 'refused'
            ELSE c.embedding_state END AS embedding_state,
       c.extraction_state AS extraction_state
// To embed first: a chat model down (whose chunks stay pending) never keeps a retry from
// embedding the rest, which search needs; those never refused before those refused (the
// longest ago first), so refused texts never fill a pass the others wait behind. Then never
// tried first, then the longest-waiting (chunk_extraction_tried.cypher): a chunk that keeps
// failing goes behind the others. Last, chunks left only to be asked again later: they cost
// nothing, and fill only what the others leave of $limit.
ORDER BY CASE WHEN ask AND c.embedding_refused_at IS NULL THEN 0 WHEN ask THEN 1
              WHEN extract THEN 2 ELSE 3 END,
         CASE WHEN ask THEN coalesce(c.embedding_refused_at, 0) ELSE 0 END,
         coalesce(c.extraction_tried_at, 0), c.note_path, c.ord
LIMIT $limit
