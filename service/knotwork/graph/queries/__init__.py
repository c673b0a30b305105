"""The named queries, typed: one ``Query`` constant per ``cypher/<name>.cypher`` file, carrying
the ``TypedDict`` of the rows it returns, so mypy checks every ``row["column"]`` a caller reads.

``GraphStore.read``/``write`` and ``run_query`` take a ``Query[R]`` and return ``list[R]``;
the rows are cast to ``R`` there, and only there. A query that returns nothing (its header says
``Returns: nothing``) is a ``Query[NoRow]``. The constants live by the part of the system that
runs them: ``writes`` (the ingest write path and what it reads to plan), ``mentions`` (the
mentions a write finds and keeps: ingest/mentions.py), ``reads`` (retrieval and the note reads
every entry point shares), ``admin`` (server, schema, manifest, lease, re-embedding,
verification, statistics). Files run statement by statement (schema.cypher,
schema_retired.cypher, vector_index_drop.cypher) have no constant: ``cypher.statements`` loads
them. tests/unit/test_queries.py holds each TypedDict to its file's ``Returns:`` header and
RETURN clause.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypedDict, TypeVar

R = TypeVar("R")


@dataclass(frozen=True)
class Query(Generic[R]):
    """A named query (the stem of its ``.cypher`` file) and the type of its rows."""

    name: str
    row: type[R]


class NoRow(TypedDict):
    """The row of a query that returns nothing: no columns (and no rows)."""
