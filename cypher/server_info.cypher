// Name, version and edition of the Neo4j server.
// Parameters: none
// Returns: name, version, edition
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition
