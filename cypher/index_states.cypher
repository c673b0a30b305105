// State of every index and constraint-backed index in the database.
// Parameters: none
// Returns: name, type, state, population (percent), dimension (vector indexes, else null)
SHOW INDEXES
YIELD name, type, state, populationPercent, options
RETURN name, type, state, populationPercent AS population,
       options.indexConfig.`vector.dimensions` AS dimension
ORDER BY name
