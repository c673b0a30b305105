// What a vault's chunks owe the models, step by step (ingest/owed.py, the one reader of it):
// the chunks pending each of $steps ('embedding': an embedding, 'extraction': a model
// extraction), each step counted with its notes, the first $shown by path named. A chunk owing
// both is counted in each step; `both` says how many of an extraction's chunks did. The
// chunks $ids are left out (a write's, not stored yet or stored next: its caller counts them),
// and the notes $paths are left out of the notes counted and named.
// Parameters: $vault (str), $steps (list of str), $ids (list of str), $paths (list of str),
//             $shown (int)
// Returns: step (str, 'embedding' or 'extraction'; one row per step some chunk owes),
//          chunks (int), both (int, of those the chunks also pending the other step, when
//          both are asked about; 0 for the embedding), notes (int), shown (list of str, note
//          paths in order)
// Each state read through its own index (a CASE over both would scan every chunk), and only
// for a step asked about.
CALL () {
  MATCH (c:Chunk) WHERE 'embedding' IN $steps AND c.embedding_state = 'pending'
  RETURN c, 'embedding' AS step
  UNION ALL
  MATCH (c:Chunk) WHERE 'extraction' IN $steps AND c.extraction_state = 'pending'
  RETURN c, 'extraction' AS step
}
WITH c, step WHERE c.vault = $vault AND NOT c.id IN $ids
WITH step, c.note_path AS path, count(c) AS chunks,
     sum(CASE WHEN step = 'extraction' AND size($steps) > 1 AND c.embedding_state = 'pending'
              THEN 1 ELSE 0 END) AS both
ORDER BY path
WITH step, [p IN collect(path) WHERE NOT p IN $paths] AS paths, sum(chunks) AS chunks,
     sum(both) AS both
RETURN step, chunks, both, size(paths) AS notes, paths[..$shown] AS shown
ORDER BY step
