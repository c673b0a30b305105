// What waits for a model, for the line that says so once (ingest/waiting.py): the chunks of a
// vault pending $step ('embedding' or 'extraction'), counted with their notes, the first
// $shown notes by path named. A write's chunks not stored yet are the caller's to count: the
// chunks $ids are left out, and so are the notes $paths.
// Parameters: $vault (str), $step (str), $ids (list of str), $paths (list of str), $shown (int)
// Returns: notes (int), chunks (int), shown (list of str, note paths in order)
// Each state read through its own index (a CASE over both would scan every chunk).
CALL () {
  MATCH (c:Chunk) WHERE $step = 'embedding' AND c.embedding_state = 'pending' RETURN c
  UNION ALL
  MATCH (c:Chunk) WHERE $step = 'extraction' AND c.extraction_state = 'pending' RETURN c
}
WITH c WHERE c.vault = $vault AND NOT c.id IN $ids
WITH c.note_path AS path, count(c) AS chunks
ORDER BY path
WITH [p IN collect(path) WHERE NOT p IN $paths] AS paths, sum(chunks) AS chunks
RETURN size(paths) AS notes, chunks, paths[..$shown] AS shown
