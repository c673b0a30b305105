// Every chunk of a vault, the fields of its canonical line (check/verify.py joins them):
// position, heading path, lines, hash, language, states, the next chunk's position, entities.
// Parameters: $vault (str)
// Returns: path (str, its note's), ord (int), heading_path (str), line_start, line_end (int),
//          hash, embedding_state, extraction_state (str), next (list<int>: the position of the
//          chunk after it, if any), entities (list<str>: the keys of its entities),
//          language (str or null), labels (list<str>: its labels but Chunk, the language's
//          one that puts it in a full-text index; a chunk left in another language's index
//          after a change of KNOTWORK_LANGUAGE differs from a fresh parse by them)
MATCH (n:Note {vault: $vault})-[:HAS_CHUNK]->(c:Chunk) WHERE n.path IS NOT NULL
RETURN n.path AS path, c.ord AS ord, c.heading_path AS heading_path,
       c.line_start AS line_start, c.line_end AS line_end, c.hash AS hash,
       c.embedding_state AS embedding_state, c.extraction_state AS extraction_state,
       [(c)-[:NEXT]->(x) | x.ord] AS next,
       [(c)-[:HAS_ENTITY]->(e) | e.key] AS entities,
       c.language AS language, [l IN labels(c) WHERE l <> 'Chunk'] AS labels
