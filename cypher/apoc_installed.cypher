// Whether APOC core is installed (apoc.version is a function, not a procedure).
// Parameters: none
// Returns: apoc (bool)
SHOW FUNCTIONS YIELD name
WHERE name = 'apoc.version'
RETURN count(*) > 0 AS apoc
