// Which of a question's word runs name an entity of the vault (Entity.mkey, a mention key):
// asked before entities_matching.cypher when the question holds Han, kana or Thai, whose
// overlapping names are settled in process (text/names_found.py: "東京都庁" names 東京, not 京都).
// Parameters: $vault (str), $mkeys (list<str>, mention keys of the question's word runs)
// Returns: mkey (str)
MATCH (e:Entity {vault: $vault}) WHERE e.mkey IN $mkeys
RETURN DISTINCT e.mkey AS mkey
