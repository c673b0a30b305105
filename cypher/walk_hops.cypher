// The graph walk in one round trip: up to three breadth-first hops from the seeds along facts,
// in either direction, to notes and entities that are not hubs. Facts only (they carry
// `source`); derived similarity edges are walked by entity_similar.cypher. Each hop expands
// the first $max_frontier nodes the previous hop discovered (in the order found), so the walk
// costs the same in a vault of a thousand notes or a hundred thousand. The three hop blocks
// are the same text; a hop beyond $depth starts from an empty frontier.
// Parameters: $ids (list<str>, element ids of the seeds, which count as discovered),
//             $chunk_ids (list<str>: the notes of these chunks are seeds too, after $ids, in
//             this order; the hits a walk starts from when the question names no note),
//             $depth (int, 1..3), $extractors (list<str> allowed, or null for all),
//             $per_node (int, facts kept per node), $max_frontier (int, nodes expanded per
//             hop), $max_degree (int, nodes with more relationships are neither entered nor
//             left), $max_mentioned_by (int or null: a text mention of a note that more notes
//             than this mention (Note.mentioned_by) is not followed, since a name most notes
//             write out, such as "api", links nothing), $score (bool: score what the walk
//             reached, as walk_scores.cypher does), $max_reached (int, notes scored),
//             $embedding (list<float> or null, the question's), $words (list<str>, the
//             question's word stems, matched as walk_scores.cypher does)
// Returns: one row: seeds (list of maps id (element id), name (note:<path>): the notes of
//          $chunk_ids not in $ids), steps (list of maps in discovery order: hop (int), from, to (element ids),
//          to_name (str: note:<path> | entity:<key>), type (str), outgoing (bool, from → to),
//          confidence, chunk_id, heading (the section of the note reached that the link
//          followed names, [[Plan#Budget]]: "Budget"; null for any other step)), scores (null
//          unless $score: a map notes, asserting as walk_scores.cypher returns them, each
//          note's chunks anchored as the heading of the step that reached it names)
CALL () {
  UNWIND range(0, size($chunk_ids) - 1) AS i
  MATCH (n:Note)-[:HAS_CHUNK]->(:Chunk {id: $chunk_ids[i]})
  WITH n, min(i) AS first ORDER BY first
  WITH n WHERE NOT elementId(n) IN $ids
  RETURN collect({id: elementId(n), name: 'note:' + n.path}) AS found
}
WITH found, $ids + [f IN found | f.id] AS ids
WITH found, ids, ids[..$max_frontier] AS frontier
CALL (frontier) {
  UNWIND range(0, size(frontier) - 1) AS i
  MATCH (x) WHERE elementId(x) = frontier[i] AND COUNT { (x)--() } <= $max_degree
  CALL (x) {
    MATCH (x)-[r]-(y)
    WHERE r.source IS NOT NULL AND (y:Note OR y:Entity)
      AND ($extractors IS NULL OR r.extractor IN $extractors)
      AND ($max_mentioned_by IS NULL OR r.extractor <> 'mention'
           OR coalesce(endNode(r).mentioned_by, 0) <= $max_mentioned_by)
      AND COUNT { (y)--() } <= $max_degree
    WITH r, y ORDER BY r.source, r.line, elementId(y)
    LIMIT $per_node
    RETURN r, y
  }
  WITH i, x, r, y ORDER BY i, r.source, r.line, elementId(y)
  RETURN collect({hop: 1, from: elementId(x), to: elementId(y),
                  to_name: CASE WHEN y:Note THEN 'note:' + y.path ELSE 'entity:' + y.key END,
                  type: type(r), outgoing: startNode(r) = x, confidence: r.confidence,
                  chunk_id: r.chunk_id,
                  heading: CASE WHEN startNode(r) = x AND y:Note THEN r.heading END}) AS hop1
}
CALL (ids, hop1) {
  UNWIND [x IN ids | {to: x, j: -1}] + [j IN range(0, size(hop1) - 1) | {to: hop1[j].to, j: j}]
    AS e
  WITH e.to AS to, min(e.j) AS first
  WITH to, first WHERE first >= 0 ORDER BY first
  RETURN collect(to) AS next1
}
WITH found, ids, ids + next1 AS seen1, hop1,
     CASE WHEN $depth >= 2 THEN next1[..$max_frontier] ELSE [] END AS frontier
CALL (frontier) {
  UNWIND range(0, size(frontier) - 1) AS i
  MATCH (x) WHERE elementId(x) = frontier[i] AND COUNT { (x)--() } <= $max_degree
  CALL (x) {
    MATCH (x)-[r]-(y)
    WHERE r.source IS NOT NULL AND (y:Note OR y:Entity)
      AND ($extractors IS NULL OR r.extractor IN $extractors)
      AND ($max_mentioned_by IS NULL OR r.extractor <> 'mention'
           OR coalesce(endNode(r).mentioned_by, 0) <= $max_mentioned_by)
      AND COUNT { (y)--() } <= $max_degree
    WITH r, y ORDER BY r.source, r.line, elementId(y)
    LIMIT $per_node
    RETURN r, y
  }
  WITH i, x, r, y ORDER BY i, r.source, r.line, elementId(y)
  RETURN collect({hop: 2, from: elementId(x), to: elementId(y),
                  to_name: CASE WHEN y:Note THEN 'note:' + y.path ELSE 'entity:' + y.key END,
                  type: type(r), outgoing: startNode(r) = x, confidence: r.confidence,
                  chunk_id: r.chunk_id,
                  heading: CASE WHEN startNode(r) = x AND y:Note THEN r.heading END}) AS hop2
}
CALL (seen1, hop2) {
  UNWIND [x IN seen1 | {to: x, j: -1}] + [j IN range(0, size(hop2) - 1) | {to: hop2[j].to, j: j}]
    AS e
  WITH e.to AS to, min(e.j) AS first
  WITH to, first WHERE first >= 0 ORDER BY first
  RETURN collect(to) AS next2
}
WITH found, ids, hop1, hop2,
     CASE WHEN $depth >= 3 THEN next2[..$max_frontier] ELSE [] END AS frontier
CALL (frontier) {
  UNWIND range(0, size(frontier) - 1) AS i
  MATCH (x) WHERE elementId(x) = frontier[i] AND COUNT { (x)--() } <= $max_degree
  CALL (x) {
    MATCH (x)-[r]-(y)
    WHERE r.source IS NOT NULL AND (y:Note OR y:Entity)
      AND ($extractors IS NULL OR r.extractor IN $extractors)
      AND ($max_mentioned_by IS NULL OR r.extractor <> 'mention'
           OR coalesce(endNode(r).mentioned_by, 0) <= $max_mentioned_by)
      AND COUNT { (y)--() } <= $max_degree
    WITH r, y ORDER BY r.source, r.line, elementId(y)
    LIMIT $per_node
    RETURN r, y
  }
  WITH i, x, r, y ORDER BY i, r.source, r.line, elementId(y)
  RETURN collect({hop: 3, from: elementId(x), to: elementId(y),
                  to_name: CASE WHEN y:Note THEN 'note:' + y.path ELSE 'entity:' + y.key END,
                  type: type(r), outgoing: startNode(r) = x, confidence: r.confidence,
                  chunk_id: r.chunk_id,
                  heading: CASE WHEN startNode(r) = x AND y:Note THEN r.heading END}) AS hop3
}
WITH found, ids, hop1 + hop2 + hop3 AS steps
// Scoring, when asked: the first step to each node is how the walk reached it; the notes so
// reached (nearest first, the first $max_reached) and the chunks those steps' facts are stated
// in are what walk_scores.cypher scores, done here so a walk is scored in its own round trip.
CALL (ids, steps) {
  UNWIND CASE WHEN $score THEN [x IN ids | {to: x, j: -1}] +
                               [j IN range(0, size(steps) - 1) | {to: steps[j].to, j: j}]
              ELSE [] END AS e
  WITH e.to AS to, min(e.j) AS first
  WITH first WHERE first >= 0 ORDER BY first
  RETURN collect(steps[first]) AS firsts
}
CALL (firsts) {
  UNWIND range(0, size(firsts) - 1) AS j
  WITH firsts[j].chunk_id AS id, j WHERE id IS NOT NULL
  WITH id, min(j) AS first ORDER BY first
  RETURN collect(id) AS asserting
}
WITH found, steps, [s IN firsts WHERE s.to_name STARTS WITH 'note:'][..$max_reached] AS reached,
     asserting
CALL (reached) {
  UNWIND reached AS step
  MATCH (n:Note)-[:HAS_CHUNK]->(c:Chunk) WHERE elementId(n) = step.to
  RETURN collect({path: substring(step.to_name, 5), note: step.to, id: c.id, ord: c.ord,
                  score: CASE WHEN $embedding IS NULL OR c.embedding IS NULL
                                   OR size(c.embedding) <> size($embedding)
                                   OR none(x IN c.embedding WHERE x <> 0.0) THEN 0.0
                              ELSE vector.similarity.cosine(c.embedding, $embedding) END,
                  held: [i IN range(0, size($words) - 1)
                         WHERE (' ' + c.mtext) CONTAINS (' ' + $words[i])],
                  anchored: step.heading IS NOT NULL
                    AND any(h IN split(c.heading_path, ' > ')
                            WHERE replace(toLower(h), ' ', '-')
                                  = replace(toLower(last(split(step.heading, '#'))), ' ', '-'))})
         AS notes
}
WITH found, steps, notes, asserting, [x IN notes | x.id] AS seen
CALL (asserting, seen) {
  UNWIND asserting AS id
  WITH id WHERE $embedding IS NOT NULL AND NOT id IN seen
  MATCH (c:Chunk {id: id})
  RETURN collect({id: id, score: CASE WHEN c.embedding IS NULL
                                           OR size(c.embedding) <> size($embedding)
                                           OR none(x IN c.embedding WHERE x <> 0.0) THEN 0.0
                                      ELSE vector.similarity.cosine(c.embedding, $embedding)
                                 END}) AS scored
}
RETURN found AS seeds, steps, CASE WHEN $score THEN {notes: notes, asserting: scored} END AS scores
