// Every fact the given notes assert, read back for revisions (rendered by models.fact_key,
// the one renderer of a fact's key); a note that asserts nothing has no row.
// Parameters: $vault (str), $paths (list<str>)
// Returns: path (str), facts (list of maps: relation, subject, target, extractor, line,
//          predicate, chunk_id, target_text (a link's or an alias's spelling, else null),
//          heading, block (a note link's section, else null; part of its key))
// Planned once per server: it finds notes by their unique key and expands from them, so
// no plan is better on a larger graph; planned again when the statistics caught up after a
// bulk write, the first delete after a sync paid for it.
CYPHER replan=skip
UNWIND $paths AS path
MATCH (n:Note {vault: $vault, path: path})
CALL (n, path) {
  MATCH (n)-[r]->() WHERE r.source = path RETURN r
  UNION
  MATCH (n)-[:HAS_CHUNK]->(:Chunk)-[:HAS_ENTITY]->(:Entity)-[r]->() WHERE r.source = path
  RETURN r
}
WITH DISTINCT path, r
RETURN path,
       collect({relation: type(r), subject: r.subject, target: r.target,
                extractor: r.extractor, line: r.line, predicate: r.predicate,
                chunk_id: r.chunk_id, target_text: r.target_text, heading: r.heading,
                block: r.block}) AS facts
