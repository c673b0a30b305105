// Text mentions in one vault, per mentioned note: how many MENTIONS facts point at it and from
// how many notes, most-mentioned first (bench/mentions.py).
// Parameters: $vault (str)
// Returns: path (str), mentions (int), notes (int, distinct mentioning notes)
MATCH (n:Note {vault: $vault})-[r:MENTIONS]->(m:Note)
WHERE n.path IS NOT NULL AND r.extractor = 'mention'
RETURN m.path AS path, count(r) AS mentions, count(DISTINCT n) AS notes
ORDER BY mentions DESC, path
