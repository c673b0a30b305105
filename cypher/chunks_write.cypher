// Write notes' chunks: properties, HAS_CHUNK, embeddings (new, or copied from an old chunk
// with the same hash so unchanged text is never embedded twice). A new embedding travels as
// its decimal text ("0.1,-0.2,…", float32-exact): Bolt sends and decodes that text about four
// times faster than a list of floats, and the vector is stored as float32 either way. `title`
// is the chunk's own heading (the note's title above the first heading): Neo4j Browser
// captions a node by it. The chunk carries the label of its language (and no other), which
// puts it in that language's full-text index (schema.cypher).
// Parameters: $vault (str), $chunks (list of maps: path (the note's), id, ord, heading_path,
//             line_start, line_end, line_map, fence (str: the code fence open at the
//             chunk's start, or ''), text, mtext, hash, context (title, aliases, heading
//             path), embed_hash, language (en|it|de|fr|es|pt), embedding (str: comma-separated
//             floats, or null), copy_from (old chunk id or null), extraction,
//             extraction_model, extraction_state, extraction_error)
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
    c.embed_hash = ch.embed_hash, c.language = ch.language,
    c.title = CASE WHEN ch.heading_path = '' THEN n.title
                   ELSE last(split(ch.heading_path, ' > ')) END,
    c.extraction = ch.extraction, c.extraction_model = ch.extraction_model,
    c.extraction_state = ch.extraction_state, c.extraction_error = ch.extraction_error
MERGE (n)-[:HAS_CHUNK]->(c)
// A label is added or removed only when it changes: each change re-indexes the chunk.
FOREACH (_ IN CASE WHEN ch.language = 'en' AND NOT c:English THEN [1] ELSE [] END | SET c:English)
FOREACH (_ IN CASE WHEN ch.language <> 'en' AND c:English THEN [1] ELSE [] END | REMOVE c:English)
FOREACH (_ IN CASE WHEN ch.language = 'it' AND NOT c:Italian THEN [1] ELSE [] END | SET c:Italian)
FOREACH (_ IN CASE WHEN ch.language <> 'it' AND c:Italian THEN [1] ELSE [] END | REMOVE c:Italian)
FOREACH (_ IN CASE WHEN ch.language = 'de' AND NOT c:German THEN [1] ELSE [] END | SET c:German)
FOREACH (_ IN CASE WHEN ch.language <> 'de' AND c:German THEN [1] ELSE [] END | REMOVE c:German)
FOREACH (_ IN CASE WHEN ch.language = 'fr' AND NOT c:French THEN [1] ELSE [] END | SET c:French)
FOREACH (_ IN CASE WHEN ch.language <> 'fr' AND c:French THEN [1] ELSE [] END | REMOVE c:French)
FOREACH (_ IN CASE WHEN ch.language = 'es' AND NOT c:Spanish THEN [1] ELSE [] END | SET c:Spanish)
FOREACH (_ IN CASE WHEN ch.language <> 'es' AND c:Spanish THEN [1] ELSE [] END | REMOVE c:Spanish)
FOREACH (_ IN CASE WHEN ch.language = 'pt' AND NOT c:Portuguese THEN [1] ELSE [] END | SET c:Portuguese)
FOREACH (_ IN CASE WHEN ch.language <> 'pt' AND c:Portuguese THEN [1] ELSE [] END | REMOVE c:Portuguese)
WITH c, ch
OPTIONAL MATCH (old:Chunk {id: ch.copy_from})
WITH c, ch, old
CALL (c, ch, old) {
  WITH c, ch, old WHERE ch.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(c, 'embedding', [x IN split(ch.embedding, ',') | toFloat(x)])
  RETURN 1 AS done
  UNION
  WITH c, ch, old WHERE ch.embedding IS NULL AND old IS NOT NULL AND old <> c
  SET c.embedding = old.embedding
  RETURN 1 AS done
  UNION
  WITH c, ch, old WHERE ch.embedding IS NULL AND (old IS NULL OR old = c)
  RETURN 1 AS done
}
SET c.embedding_state = CASE WHEN c.embedding IS NULL THEN 'pending' ELSE 'done' END
RETURN count(c) AS written
