// What retrieval keeps of a vault between writes: how many notes it holds (the document count
// a name's specificity is measured against) and the languages its notes are indexed in (a
// chunk carries its note's language label, so full-text search asks those indexes only).
// Parameters: $vault (str)
// Returns: one row: notes (int), languages (list<str>, the most notes' language first; full
//          text breaks a tie between two indexes' hits by this order), unknown (int, notes
//          with chunks but no language, written before notes had one: their chunks may be in
//          any index)
MATCH (n:Note {vault: $vault}) WHERE n.path IS NOT NULL
WITH count(n) AS notes,
     count(CASE WHEN n.language IS NULL AND EXISTS { (n)-[:HAS_CHUNK]->() } THEN 1 END)
       AS unknown
CALL () {
  MATCH (m:Note {vault: $vault}) WHERE m.path IS NOT NULL AND m.language IS NOT NULL
  WITH m.language AS language, count(*) AS held
  ORDER BY held DESC, language
  RETURN collect(language) AS languages
}
RETURN notes, languages, unknown
