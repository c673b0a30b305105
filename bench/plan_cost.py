"""What planning the queries of a first sync costs Neo4j: each query a sync runs, planned anew.

Usage (from the repository root):
    .venv/bin/python -m bench.plan_cost [--folder PATH] [--runs 5] [--options "runtime=slotted"]
        [--only chunks_write mentions_write] [--neo4j-pid-file PATH] [--save FILE | --params FILE]

A sync of a copy of ``--folder`` (vault-it-sapienza by default) records, for every named query
it runs, the parameters of its first call at each shape the plan cache tells apart (a list
parameter's length bucket: empty, one, up to 10, up to 100, more; whether its rows are maps;
bench/RESULTS.md, "The first sync on a new database"). The vault is then dropped (the schema
stays, as on a first sync) and each (query, shape) is planned ``--runs`` times with
``CYPHER replan=force [--options] EXPLAIN <query>``: nothing runs, each call plans. The table
gives the median and the fastest call in milliseconds (client wall time, a Bolt round trip
included: the ``RETURN 1`` row gives that floor) and the total of the medians, what a first
sync pays for planning with the server's JIT warm; with ``--neo4j-pid-file``, also the server's
CPU time per call, less swayed than wall time by other work on the machine. ``--options`` is
prepended to every query (Cypher query options, e.g. ``expressionEngine=interpreted``); a
query's own ``CYPHER`` options are kept unless ``--options`` sets the same one. ``--save FILE``
keeps the recorded parameters, ``--params FILE`` measures with them without a sync;
``--one-plan-per-query`` plans each query at its first shape only (a server with
``internal.cypher.use_parameter_size=false``, as the local launcher writes). Neo4j as in
bench/ingest.py (KNOTWORK_NEO4J_URI, else a local server).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pickle
import re
import shutil
import statistics
import tempfile
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from neo4j import WRITE_ACCESS, AsyncDriver, AsyncManagedTransaction

from bench.common import EMBEDDER_ENV, bench_settings, intercept_queries, use_bench_embedder
from bench.profile_ingest import neo4j_cpu_s
from knotwork.core import open_core
from knotwork.graph import cypher
from knotwork.graph.queries import Query
from knotwork.graph.store import run_query
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.settings import Settings

VAULT = "plancost"
DEFAULT_FOLDER = Path("/work/shared/eval/vault-it-sapienza")
# (query name, shape) -> the parameters of the first call at that shape, in the order first seen.
SEEN: dict[tuple[str, str], dict[str, Any]] = {}
RECORDING = [False]
_OPTIONS = re.compile(r"^\s*CYPHER((?:\s+[A-Za-z]+=\w+)+)\s*\n", re.IGNORECASE)


def bucket(n: int) -> str:
    """The list-length bucket the plan cache keys on (bench/RESULTS.md)."""
    if n <= 1:
        return str(n)
    return "≤10" if n <= 10 else "≤100" if n <= 100 else ">100"


def shape(params: dict[str, Any]) -> str:
    """What of the parameters the plan cache tells apart: each list's bucket, maps or not."""
    parts = []
    for key, value in sorted(params.items()):
        if isinstance(value, list):
            kind = "maps" if value and isinstance(value[0], dict) else ""
            parts.append(f"{key}:{bucket(len(value))}{kind and ' ' + kind}")
    return ", ".join(parts)


def _note(name: str, params: dict[str, Any]) -> None:
    if RECORDING[0]:
        SEEN.setdefault((name, shape(params)), dict(params))


async def _recorded_q(
    tx: AsyncManagedTransaction, query: Query[Any], params: dict[str, Any]
) -> list[Any]:
    _note(query.name, params)
    return await run_query(tx, query, **params)


async def _recorded(query: Query[Any], params: dict[str, Any], running: Awaitable[Any]) -> Any:
    _note(query.name, params)
    return await running


def _patch() -> None:
    """Record every named query a sync runs, inside write transactions and outside."""
    intercept_queries(_recorded_q, _recorded)


def with_options(text: str, options: str) -> str:
    """``text`` as ``CYPHER replan=force <options> EXPLAIN <body>``, its own options merged."""
    own: dict[str, str] = {}
    if m := _OPTIONS.match(text):
        own = dict(o.split("=", 1) for o in m.group(1).split())
        text = text[m.end() :]
    own.update(dict(o.split("=", 1) for o in options.split()))
    own["replan"] = "force"
    return "CYPHER " + " ".join(f"{k}={v}" for k, v in own.items()) + " EXPLAIN " + text


async def plan_ms(driver: AsyncDriver, database: str, text: str, params: dict[str, Any]) -> float:
    async with driver.session(database=database, default_access_mode=WRITE_ACCESS) as session:
        start = time.perf_counter()
        result = await session.run(text, params)
        await result.consume()
        return (time.perf_counter() - start) * 1000


async def record(settings: Settings, folder: Path) -> None:
    """Sync a copy of ``folder`` with every query's parameters recorded, then drop it."""
    copy = Path(tempfile.mkdtemp(prefix="knotwork-plancost-"))
    try:
        shutil.copytree(folder, copy, dirs_exist_ok=True)
        async with open_core(settings) as core:
            use_bench_embedder(core)
            await core.ensure_ready()
            await core.store.drop_vault(VAULT)
            _patch()
            ingestor = Ingestor(core, root=copy, vault=VAULT, extract_enabled=False)
            RECORDING[0] = True
            await sync_vault(ingestor)
            RECORDING[0] = False
            await core.store.drop_vault(VAULT)
    finally:
        shutil.rmtree(copy, ignore_errors=True)


async def measure(
    settings: Settings,
    runs: int,
    options: str,
    only: list[str],
    pid_file: str | None,
    one_plan: bool = False,
) -> list[tuple[str, str, float, float, float]]:
    """(query, shape, median ms, fastest ms, server CPU ms per call) of planning each recorded
    (query, shape)."""
    out = []
    async with open_core(settings) as core:
        driver, database = core.driver, settings.neo4j_database
        cases: list[tuple[tuple[str, str], dict[str, Any]]] = [(("(floor) RETURN 1", ""), {})]
        for key, p in SEEN.items():
            if (not only or key[0] in only) and not (
                one_plan and key[0] in {k[0] for k, _ in cases}
            ):
                cases.append((key, p))
        for (name, shp), params in cases:
            text = "RETURN 1" if name.startswith("(") else cypher.load(name)
            text = with_options(text, options)
            cpu = neo4j_cpu_s(pid_file)
            times = [await plan_ms(driver, database, text, params) for _ in range(runs)]
            cpu_ms = (neo4j_cpu_s(pid_file) - cpu) * 1000 / runs
            out.append((name, shp, statistics.median(times), min(times), cpu_ms))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--folder", type=Path, default=DEFAULT_FOLDER)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--options", default="", help="Cypher query options for every query")
    parser.add_argument("--only", nargs="*", default=[], help="only these queries")
    parser.add_argument(
        "--neo4j-pid-file", help="the server's pid file: also its CPU time per call"
    )
    parser.add_argument(
        "--one-plan-per-query",
        action="store_true",
        help="each query at the first shape a sync runs it with only, as a server planning "
        "one plan per query (internal.cypher.use_parameter_size=false) does",
    )
    parser.add_argument("--save", type=Path, help="keep the recorded parameters in this file")
    parser.add_argument("--params", type=Path, help="parameters kept by --save: no sync")
    args = parser.parse_args()
    os.environ.setdefault(EMBEDDER_ENV, "inprocess")
    with bench_settings() as settings:
        if args.params:
            SEEN.update(pickle.loads(args.params.read_bytes()))  # noqa: S301 (our own file)
        else:
            asyncio.run(record(settings, args.folder))
        if args.save:
            args.save.write_bytes(pickle.dumps(SEEN))
        rows = asyncio.run(
            measure(
                settings,
                args.runs,
                args.options,
                args.only,
                args.neo4j_pid_file,
                args.one_plan_per_query,
            )
        )
    print(f"options: {args.options or '(none)'}; median of {args.runs}, ms")
    print()
    print("| query | shape | median ms | fastest ms | server CPU ms |")
    print("|---|---|---:|---:|---:|")
    for name, shp, med, fast, cpu in sorted(rows[1:], key=lambda r: -r[2]):
        print(f"| {name} | {shp} | {med:.0f} | {fast:.0f} | {cpu:.0f} |")
    name, _, med, fast, cpu = rows[0]
    print(f"| {name} | | {med:.1f} | {fast:.1f} | {cpu:.1f} |")
    total, total_cpu = sum(r[2] for r in rows[1:]), sum(r[4] for r in rows[1:])
    print(
        f"\ntotal of medians: {total:.0f} ms over {len(rows) - 1} (query, shape) pairs; "
        f"server CPU per call, summed: {total_cpu:.0f} ms"
    )


if __name__ == "__main__":
    main()
