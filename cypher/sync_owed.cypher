// What an earlier sync, cut off before its last batch, still owes the notes it did not write
// (sync_owe.cypher): paid by the next sync's last batch.
// Parameters: $vault (str)
// Returns: reverse (list<str>, mention keys), links (list<str>, link keys); empty lists when
//          nothing is owed
OPTIONAL MATCH (s:NameStamp {vault: $vault})
RETURN coalesce(s.owed_reverse, []) AS reverse, coalesce(s.owed_links, []) AS links
