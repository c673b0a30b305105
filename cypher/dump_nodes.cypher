// Every entity and unresolved placeholder of a vault as a canonical line. Entity names are left
// out (the first writer's spelling wins, so they may differ in case between two build orders);
// a placeholder's name is a function of the links that point at it now, so it is kept.
// Parameters: $vault (str)
// Returns: line (str)
MATCH (x)
WHERE (x:Entity OR x:Unresolved) AND x.vault = $vault
RETURN CASE WHEN x:Entity THEN 'entity:' + x.key
            ELSE 'unresolved:' + x.key + '|' + coalesce(x.name, '') END AS line
ORDER BY line
