// How near to the question the chunks a walk reached are, each chunk read once: every chunk of
// the reached notes (the caller keeps each note's best) and the chunks that assert a walked
// fact outside those notes. Cosine of the chunk's embedding and the question's; 0 for a chunk
// not yet embedded or without a question vector (then the notes' chunks come in note order),
// and for a vector that vector.similarity.cosine refuses rather than scores: all zeros (stored
// before embeddings were checked: graph/zero_vectors.py) or of another size (a chunk already
// re-embedded by another model while a server still asks with the old one).
// Its twin: the scoring block at the end of walk_hops.cypher scores a walk the same way in the
// walk's own round trip; a change to one is made to the other.
// A note's chunk also says which of the question's words it holds (held: indexes into $words,
// each a word's start matched at a word's start in Chunk.mtext), so the caller can tell which
// of a named note's neighbours the question asks about.
// A note reached by a link to one of its sections ([[Plan#Budget]]) marks the chunks under that
// heading (anchored: one of the chunk's heading path, case aside and a space read as "-", is
// the link's last "#" part: [C](Plan.md#budget-2024) names "Budget 2024" as GitHub spells it).
// Parameters: $vault (str), $paths (list<str>, reached notes), $anchors (list: for each of
//             $paths, the heading the link that reached it names, or null), $ids (list<str>,
//             asserting chunk ids), $embedding (list<float> or null), $words (list<str>, the
//             question's word stems, case-folded)
// Returns: one row: notes (list of maps path, note (element id), id (chunk id), ord (int),
//          score (float), held (list<int>), anchored (bool)), asserting (list of maps id,
//          score (float), for the $ids not among the notes' chunks)
CALL () {
  UNWIND range(0, size($paths) - 1) AS k
  WITH $paths[k] AS path, $anchors[k] AS anchor
  MATCH (n:Note {vault: $vault, path: path})-[:HAS_CHUNK]->(c:Chunk)
  RETURN collect({path: path, note: elementId(n), id: c.id, ord: c.ord,
                  score: CASE WHEN $embedding IS NULL OR c.embedding IS NULL
                                   OR size(c.embedding) <> size($embedding)
                                   OR none(x IN c.embedding WHERE x <> 0.0) THEN 0.0
                              ELSE vector.similarity.cosine(c.embedding, $embedding) END,
                  held: [i IN range(0, size($words) - 1)
                         WHERE (' ' + c.mtext) CONTAINS (' ' + $words[i])],
                  anchored: anchor IS NOT NULL
                    AND any(h IN split(c.heading_path, ' > ')
                            WHERE replace(toLower(h), ' ', '-')
                                  = replace(toLower(last(split(anchor, '#'))), ' ', '-'))})
         AS notes
}
WITH notes, [x IN notes | x.id] AS seen
CALL (seen) {
  UNWIND $ids AS id
  WITH id WHERE NOT id IN seen
  MATCH (c:Chunk {id: id})
  RETURN collect({id: id, score: CASE WHEN $embedding IS NULL OR c.embedding IS NULL
                                           OR size(c.embedding) <> size($embedding)
                                           OR none(x IN c.embedding WHERE x <> 0.0) THEN 0.0
                                      ELSE vector.similarity.cosine(c.embedding, $embedding)
                                 END}) AS asserting
}
RETURN notes, asserting
