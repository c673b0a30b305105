// Notes dated within a range (frontmatter dates, daily-note names, dates in the text), with
// their first chunk, nearest to the middle of the range first.
// Parameters: $vault (str), $date_from (ISO date str), $date_to (ISO date str), $middle (ISO
//             date str), $k (int)
// Returns: id (chunk id), score (float, 1 / (1 + days from the middle))
MATCH (n:Note {vault: $vault})
WHERE n.path IS NOT NULL AND any(d IN coalesce(n.dates, []) WHERE d >= $date_from AND d <= $date_to)
WITH n, reduce(best = 100000, d IN [x IN n.dates WHERE x >= $date_from AND x <= $date_to] |
       CASE WHEN abs(duration.inDays(date(d), date($middle)).days) < best
            THEN abs(duration.inDays(date(d), date($middle)).days) ELSE best END) AS days
ORDER BY days, n.path
LIMIT $k
CALL (n) {
  MATCH (n)-[:HAS_CHUNK]->(c:Chunk) WITH c ORDER BY c.ord LIMIT 1 RETURN c
}
RETURN c.id AS id, 1.0 / (1 + days) AS score
