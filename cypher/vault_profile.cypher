// What retrieval keeps of a vault between writes: how many notes it holds (the document count
// a name's specificity is measured against) and the languages its notes are indexed in (a
// chunk carries its note's language label, so full-text search asks those indexes only).
// Parameters: $vault (str)
// Returns: one row: notes (int), languages (list<str>), unknown (int, notes with chunks but no
//          language, written before notes had one: their chunks may be in any index)
MATCH (n:Note {vault: $vault})
RETURN count(n) AS notes,
       collect(DISTINCT n.language) AS languages,
       count(CASE WHEN n.language IS NULL AND EXISTS { (n)-[:HAS_CHUNK]->() } THEN 1 END)
         AS unknown
