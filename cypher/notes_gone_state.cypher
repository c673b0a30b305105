// What a batch of deletes alone reads before its transaction, in one round trip: each note's
// stored hash and mention keys (notes_state.cypher's, without the chunks a delete does not
// need), and the vault's names stamp (names_stamp.cypher's tokens), which notes_state and
// names_stamp would read in two.
// Parameters: $vault (str), $paths (list<str>, vault-relative)
// Returns: tokens (list<str>, as names_stamp.cypher), notes (list of maps: path, content_hash,
//          mkeys (a list; null for a note that has none); a note the graph does not hold, or
//          holds only as a placeholder, is not listed)
// Planned once per server: it finds notes by unique key and scans a label that holds one node
// per vault, so no plan is better on a larger graph; not planned again when the statistics
// catch up after a bulk write (the first delete after a sync would pay for it).
CYPHER replan=skip
OPTIONAL MATCH (s:NameStamp {vault: $vault})
WITH collect(s.token) AS tokens
RETURN tokens,
       COLLECT { UNWIND $paths AS path
                 MATCH (n:Note {vault: $vault, path: path}) WHERE n.content_hash IS NOT NULL
                 RETURN {path: path, content_hash: n.content_hash, mkeys: n.mkeys} } AS notes
