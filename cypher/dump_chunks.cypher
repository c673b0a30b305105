// Every chunk of a vault as a canonical line: position, lines, hash, states, order, entities.
// Parameters: $vault (str)
// Returns: line (str), parsed (str: the part a fresh parse determines, as JSON: position,
//          heading path, lines, hash; verify compares it without splitting the line)
MATCH (n:Note {vault: $vault})-[:HAS_CHUNK]->(c:Chunk)
RETURN n.path + '#' + toString(c.ord) + '|' + c.heading_path + '|' + toString(c.line_start)
       + '-' + toString(c.line_end) + '|' + c.hash + '|' + c.embedding_state + '|'
       + c.extraction_state + '|'
       + apoc.convert.toJson([[(c)-[:NEXT]->(x) | x.ord],
                              apoc.coll.sort([(c)-[:HAS_ENTITY]->(e) | e.key])]) AS line,
       apoc.convert.toJson([n.path + '#' + toString(c.ord), c.heading_path, c.line_start,
                            c.line_end, c.hash]) AS parsed
ORDER BY line
