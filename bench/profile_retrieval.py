"""Where one retrieval spends its time: each named query on a timeline, with Neo4j's own time.

Usage (from the repository root, after ``python -m bench.retrieval --chunks N --keep``):
    .venv/bin/python -m bench.profile_retrieval --chunks 50000 [--questions 30] [--show 3]

Asks bench/retrieval.py's questions of the vault a ``--keep`` run left (``mode="retrieve"``),
with every read timed three ways: the whole call (session, auto-commit query, as
GraphStore.read runs it: what retrieval waits for), the query inside it (run to last record),
and Neo4j's own time from the result summary (planning, execution and streaming; the rest is
Bolt transfer and the driver). Prints, per query name, medians per question, and for ``--show``
questions the timeline of their queries (start and end in ms after the call began), which shows
what runs one after another. Neo4j as in bench/retrieval.py.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from neo4j import AsyncSession

from bench.common import bench_settings
from bench.retrieval import VAULT, VaultBuilder, make_questions
from knotwork.core import open_core
from knotwork.graph import cypher
from knotwork.graph.queries import Query
from knotwork.graph.store import GraphStore, result_rows
from knotwork.retrieve import retrieve

EVENTS: list[tuple[str, float, float, float, float]] = []  # name, start, end, in-tx, server
ORIGIN = [0.0]


def _patch() -> None:
    async def read(self: GraphStore, query: Query[Any], /, **params: Any) -> list[dict[str, Any]]:
        name, inner = query.name, list[float]()

        async def call(session: AsyncSession) -> list[dict[str, Any]]:
            start = time.perf_counter()
            result = await session.run(cypher.load(name), params)
            rows = await result_rows(result)
            summary = await result.consume()
            server = (summary.result_available_after or 0) + (summary.result_consumed_after or 0)
            inner[:] = [(time.perf_counter() - start) * 1000, float(server)]
            return rows

        start = time.perf_counter()
        rows: list[dict[str, Any]] = await self._attempts(call, write=False)
        end = time.perf_counter()
        EVENTS.append(
            (name, (start - ORIGIN[0]) * 1000, (end - ORIGIN[0]) * 1000, inner[0], inner[1])
        )
        return rows

    GraphStore.read = read  # type: ignore[method-assign]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=50000)
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--show", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="knotwork-profile-retrieval-"))
    _patch()
    per_name: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    totals: list[float] = []
    try:
        with bench_settings() as settings:
            builder = VaultBuilder(folder, settings.chunk_size)
            builder.grow(min(args.chunks, 10000))  # questions come from the first size's notes
            questions = make_questions(builder, args.questions + args.warmup)
            async with open_core(settings) as core:
                await core.ensure_ready()
                for i, (kind, question) in enumerate(questions):
                    EVENTS.clear()
                    ORIGIN[0] = time.perf_counter()
                    evidence = await retrieve(core, VAULT, question, mode="retrieve")
                    total = (time.perf_counter() - ORIGIN[0]) * 1000
                    if i < args.warmup:
                        continue
                    totals.append(total)
                    for name, start, end, tx, server in EVENTS:
                        per_name[name].append((end - start, tx, server))
                    if i - args.warmup < args.show:
                        print(f"\n{kind}: {question!r}: {total:.1f} ms, {evidence.timings_ms}")
                        for name, start, end, tx, server in sorted(EVENTS, key=lambda e: e[1]):
                            print(
                                f"  {start:7.1f} → {end:7.1f} ms  {name:<22} "
                                f"(in query {tx:6.1f}, server {server:5.0f})"
                            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"\n{len(totals)} questions: median {statistics.median(totals):.1f} ms")
    print("| query | calls per question | median wall | median in query | median server |")
    print("|---|---:|---:|---:|---:|")
    for name, times in sorted(per_name.items(), key=lambda kv: -sum(t[0] for t in kv[1])):
        walls, txs, servers = zip(*times, strict=True)
        print(
            f"| {name} | {len(times) / len(totals):.2f} | {statistics.median(walls):.1f} ms | "
            f"{statistics.median(txs):.1f} ms | {statistics.median(servers):.0f} ms |"
        )


if __name__ == "__main__":
    asyncio.run(main())
