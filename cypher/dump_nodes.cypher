// Every entity and unresolved placeholder of a vault as a canonical line. Names are left out:
// the first writer's spelling wins, so they may differ in case between two build orders.
// Parameters: $vault (str)
// Returns: line (str)
MATCH (x)
WHERE (x:Entity OR x:Unresolved) AND x.vault = $vault
RETURN CASE WHEN x:Entity THEN 'entity:' ELSE 'unresolved:' END + x.key AS line
ORDER BY line
