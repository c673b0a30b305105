// Entities of a vault whose name has not been embedded yet (new, or left while the embedding
// model was unavailable). Names the model refused (entities_refused_stamp.cypher) come
// after the others, the longest refused first, so they never fill a read the others wait
// behind; those refused at or after $asked_before (within the model's back-off, unless a
// retry asks again at once) and those refused earlier in the same call ($exclude) are not
// read.
// Parameters: $vault (str), $limit (int), $exclude (list of str: entity keys),
//             $asked_before (int, milliseconds since the epoch)
// Returns: key (str), name (str)
MATCH (e:Entity {vault: $vault, embedding_state: 'pending'})
// The hint keeps the seek on entity_embedding_state: with the $exclude filter alone the
// planner scans every entity of every vault by (vault, key).
USING INDEX e:Entity(vault, embedding_state)
WHERE NOT e.key IN $exclude AND coalesce(e.embedding_refused_at, 0) < $asked_before
RETURN e.key AS key, e.name AS name
ORDER BY coalesce(e.embedding_refused_at, 0), key
LIMIT $limit
