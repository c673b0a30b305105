// Notes whose text holds one of $named (the keys some note bears after a change): a phrase
// query on the whitespace full-text index chunk_words over Chunk.mtext, a key's words in a
// row (keys are words, or text.keys.BREAK, joined by single spaces: the quoted key needs no
// escaping).
// Run first in a write transaction, before it writes anything: Neo4j 5 filters a full-text
// query's committed hits by the ids of the entities the transaction changed, and counts a
// deleted *relationship*'s id there too, so after the transaction deleted relationship 42
// (a link moved, a fact rewritten) it no longer finds chunk node 42 — a mention missed.
// Parameters: $vault (str), $named (list<str>, mention keys)
// Returns: paths (list<str>, the notes' paths; notes the transaction deletes may be among them)
UNWIND $named AS key
CALL db.index.fulltext.queryNodes('chunk_words', '"' + key + '"') YIELD node AS c
WITH c WHERE c.vault = $vault
RETURN collect(DISTINCT c.note_path) AS paths
