"""A Neo4j Community server from Maven Central jars, for machines without Docker."""
