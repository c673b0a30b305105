// Every fact asserted in a vault as a canonical line: source, type, ends, provenance, and a
// link's spelling (as written, and the path a relative link names), section and display text.
// Chunks are named by note path and position so two vaults can be compared.
// Parameters: $vault (str)
// Returns: line (str), extractor (str: verify leaves model facts out by it, since a note path
//          or a wording may hold the line's separator)
MATCH (s)-[r]->(o)
WHERE r.source IS NOT NULL AND s.vault = $vault
OPTIONAL MATCH (c:Chunk {id: r.chunk_id})
WITH r, c,
     CASE WHEN s:Note THEN 'note:' + s.path WHEN s:Unresolved THEN 'unresolved:' + s.key
          ELSE 'entity:' + s.key END AS subject,
     CASE WHEN o:Note THEN 'note:' + o.path WHEN o:Unresolved THEN 'unresolved:' + o.key
          ELSE 'entity:' + o.key END AS object
RETURN r.source + '|' + type(r) + '|' + subject + '|' + object + '|' + r.extractor + '|'
       + toString(r.line) + '|' + coalesce(r.predicate, '') + '|'
       + coalesce(c.note_path + '#' + toString(c.ord), '') + '|' + r.target + '|'
       + toString(r.confidence) + '|' + coalesce(r.model, '') + '|' + coalesce(r.target_text, '')
       + '|' + coalesce(r.target_name, '') + '|' + coalesce(r.heading, '') + '|'
       + coalesce(r.block, '') + '|' + coalesce(r.display, '') AS line, r.extractor AS extractor
ORDER BY line
