"""The Neo4j gateway: named Cypher, the typed store, schema, the writer's lease, note names."""
