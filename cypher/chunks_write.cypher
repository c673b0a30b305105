// Write notes' chunks: properties, HAS_CHUNK, embeddings (new, or copied from an old chunk
// with the same hash so unchanged text is never embedded twice). A new embedding travels as
// its decimal text ("0.1,-0.2,…", float32-exact): Bolt sends and decodes that text about four
// times faster than a list of floats, and the vector is stored as float32 either way. `title`
// is the chunk's own heading (the note's title above the first heading): Neo4j Browser
// captions a node by it. The chunk carries the label of its language (and no other), which
// puts it in that language's full-text index (schema.cypher); a chunk holding Lao, Khmer or
// Myanmar also keeps the pairs of their runs (`pairs`, the chunk_pairs index), any other none.
// Parameters: $vault (str), $chunks (list of maps: path (the note's), id, ord, heading_path,
//             line_start, line_end, line_map, fence (str: the code fence open at the
//             chunk's start, or ''), text, mtext, hash, context (title, aliases, heading
//             path), pairs (str: text/pairs.py, or null), embed_hash,
//             language (en|it|de|fr|es|pt|th|cjk|ru|ar), embedding (str: comma-separated
//             floats, or null), embedding_refused_at (int, milliseconds since the epoch:
//             when the model refused its text alone, or null), copy_from (old chunk id or
//             null), extraction, extraction_model, extraction_state, extraction_error)
// Returns: written (int)
// Planned once per server: every node it reads is found by a unique key or element id,
// so no plan is better on a larger graph, and a sync growing the graph does not have it
// planned again on the way (planning it costs more than running a batch of it).
CYPHER replan=skip
UNWIND $chunks AS ch
MATCH (n:Note {vault: $vault, path: ch.path})
MERGE (c:Chunk {id: ch.id})
SET c.vault = $vault, c.note_path = ch.path, c.ord = ch.ord, c.heading_path = ch.heading_path,
    c.line_start = ch.line_start, c.line_end = ch.line_end, c.line_map = ch.line_map,
    c.fence = ch.fence,
    c.text = ch.text, c.mtext = ch.mtext, c.hash = ch.hash, c.context = ch.context,
    c.pairs = ch.pairs,
    c.embed_hash = ch.embed_hash, c.language = ch.language,
    c.title = CASE WHEN ch.heading_path = '' THEN n.title
                   ELSE last(split(ch.heading_path, ' > ')) END,
    c.extraction = ch.extraction, c.extraction_model = ch.extraction_model,
    c.extraction_state = ch.extraction_state, c.extraction_error = ch.extraction_error
MERGE (n)-[:HAS_CHUNK]->(c)
// The language's label, and no other language's: a label is removed only when the language
// changed (each change re-indexes the chunk); setting a label the chunk has changes nothing.
// Dynamic labels, as ten conditional FOREACHes of each cost Neo4j more to plan than a batch
// to run (bench/RESULTS.md, "Planning a first sync").
WITH c, ch, {en: 'English', it: 'Italian', de: 'German', fr: 'French', es: 'Spanish',
             pt: 'Portuguese', th: 'Thai', cjk: 'CJK', ru: 'Russian',
             ar: 'Arabic'}[ch.language] AS label
REMOVE c:$([l IN labels(c) WHERE l IN ['English', 'Italian', 'German', 'French', 'Spanish',
                                       'Portuguese', 'Thai', 'CJK', 'Russian', 'Arabic']
                                 AND l <> label])
SET c:$(label)
WITH c, ch
OPTIONAL MATCH (old:Chunk {id: ch.copy_from})
FOREACH (_ IN CASE WHEN ch.embedding IS NULL AND old <> c THEN [1] ELSE [] END |
  SET c.embedding = old.embedding)
WITH c, ch
CALL (c, ch) {
  WITH c, ch WHERE ch.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(c, 'embedding', [x IN split(ch.embedding, ',') | toFloat(x)])
}
// A vector stored ends a refusal stamped before (chunks_refused_stamp.cypher); a text the
// model refused in this write is stamped as it is stored, so a background pass leaves it to
// the model's back-off (chunks_pending.cypher); a model down keeps an earlier stamp.
SET c.embedding_state = CASE WHEN c.embedding IS NULL THEN 'pending' ELSE 'done' END,
    c.embedding_refused_at = CASE WHEN c.embedding IS NULL
                                  THEN coalesce(ch.embedding_refused_at, c.embedding_refused_at)
                             END
RETURN count(c) AS written
