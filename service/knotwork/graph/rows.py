"""A named query's parameters on their way to the driver and its rows on their way back."""

from __future__ import annotations

from typing import Any, cast

from neo4j import AsyncManagedTransaction, AsyncResult

from knotwork.graph import cypher
from knotwork.graph.queries import Query, R


async def result_rows(result: AsyncResult) -> list[dict[str, Any]]:
    """A result's records as dicts of their values as decoded. The queries return plain values,
    lists and maps (never nodes, relationships or paths), so ``Record.data()``'s recursive
    conversion, which checks every value of every nested list and map, is not needed: it was
    the largest share of the client's CPU time in retrieval (bench/RESULTS.md)."""
    keys = result.keys()
    return [dict(zip(keys, record, strict=True)) async for record in result]


def typed(query: Query[R], rows: list[dict[str, Any]]) -> list[R]:
    """The rows as the query's row type: the one cast of rows to their TypedDict (the unit test
    test_queries.py holds each TypedDict to its file's returned columns)."""
    return cast(list[R], rows)


class Rows(list[Any]):
    """A list parameter that the driver's debug line names by its length. The driver (5.28)
    builds that line, the ``repr`` of every parameter, on every query whether or not debug
    logging is on: for a batch of chunks with their embeddings, megabytes of text formatted
    for nothing (bench/RESULTS.md, "Ingest: the writer's first batch sooner"). It packs as a
    list."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} rows>"


def unlogged(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with every list as ``Rows``: the same values on the wire."""
    return {k: Rows(v) if type(v) is list else v for k, v in params.items()}


async def run_query(tx: AsyncManagedTransaction, query: Query[R], /, **params: Any) -> list[R]:
    """Run a named query inside a transaction of ``GraphStore.write_transaction`` (whose
    retries and error translation cover it), for writes of several queries in one commit."""
    return typed(query, await result_rows(await tx.run(cypher.load(query.name), unlogged(params))))
