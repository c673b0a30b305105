"""Knotwork: a Markdown vault as a live, provenance-tracked knowledge graph in Neo4j."""

__version__ = "0.1.0"
