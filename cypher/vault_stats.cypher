// Counts for one vault: notes, chunks, entities, unresolved links, pending work, facts.
// Parameters: $vault (str)
// Returns: notes, chunks, entities, unresolved, pending_embeddings, pending_extractions,
//          extraction_errors, facts (list of [extractor, count] pairs)
CALL () { MATCH (n:Note {vault: $vault}) WHERE n.path IS NOT NULL RETURN count(n) AS notes }
CALL () {
  MATCH (c:Chunk) WHERE c.vault = $vault
  RETURN count(c) AS chunks,
         count(CASE WHEN c.embedding_state = 'pending' THEN 1 END) AS pending_embeddings,
         count(CASE WHEN c.extraction_state = 'pending' THEN 1 END) AS pending_extractions,
         count(CASE WHEN c.extraction_state = 'error' THEN 1 END) AS extraction_errors
}
CALL () { MATCH (e:Entity {vault: $vault}) RETURN count(e) AS entities }
CALL () { MATCH (u:Unresolved {vault: $vault}) RETURN count(u) AS unresolved }
CALL () {
  MATCH (s)-[r]->() WHERE r.source IS NOT NULL AND s.vault = $vault
  WITH r.extractor AS extractor, count(*) AS n
  RETURN collect([extractor, n]) AS facts
}
RETURN notes, chunks, entities, unresolved, pending_embeddings, pending_extractions,
       extraction_errors, facts
