"""Question → ranked evidence: retrievers in Cypher, fused, then ranked over the graph."""

from knotwork.retrieve.pipeline import retrieve
from knotwork.retrieve.search import lucene_query
from knotwork.retrieve.types import Evidence, FactRow, Filters, Hit, HopPath, Mode

__all__ = [
    "Evidence",
    "FactRow",
    "Filters",
    "Hit",
    "HopPath",
    "Mode",
    "lucene_query",
    "retrieve",
]
