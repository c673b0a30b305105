"""Where a whole-vault sync spends its time: wall time per named query, and the Python side.

Usage (from the repository root):
    .venv/bin/python -m bench.profile_ingest --notes 1000 [--folder PATH] [--cprofile out.prof]
        [--neo4j-pid-file PATH] [--embedder http|inprocess] [--wipe]
        [--deletes N [--settle S]]

Generates bench/ingest.py's vault (or copies ``--folder``), syncs it once with every named query
timed (time from sending it to the last record read, in the transaction: Neo4j's execution plus
Bolt transfer), and prints a table of queries by total time beside the whole sync's wall time;
"commit and begin" is each write transaction's time outside its queries. Above it, when each
write transaction ran: the time before the first is the writer waiting (files read, every note
parsed for the vault's final names, the first batch drafted and embedded). Neo4j as in
bench/ingest.py (KNOTWORK_NEO4J_URI, else a local server); the embedder is the loopback fake,
or with ``--embedder inprocess`` the same hashing function in the process (bench/common.py).
``--wipe`` deletes every node, constraint and index first (as bench/compare.py does): a first
sync on a new database, every query planned anew.
``--deletes N``: after the sync, the write rehearsal the watcher runs after its rescan (untimed)
and ``--settle`` seconds, N notes deleted one at a time, as the watcher deletes them, with a
second table of the queries of those deletes (median and slowest call).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import os
import random
import shutil
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import Any

from neo4j import AsyncManagedTransaction

from bench.common import EMBEDDER_ENV, bench_settings, intercept_queries, use_bench_embedder
from bench.ingest import generate, wipe_database
from knotwork.core import open_core
from knotwork.graph import cypher
from knotwork.graph.queries import Query
from knotwork.graph.store import GraphStore
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.rehearse import rehearse
from knotwork.ingest.sync import sync_vault
from knotwork.settings import Settings

TIMES: dict[str, list[float]] = defaultdict(list)
# Each write transaction's start and end, in seconds after the sync began: how long the writer
# waits for its first batch (reading, parsing, the final names) and what runs after its last.
SPANS: list[tuple[float, float]] = []
BEGAN = [0.0]
SERVER: dict[str, list[float]] = defaultdict(list)  # Neo4j's own time: planning, running, streaming


async def _timed_q(
    tx: AsyncManagedTransaction, query: Query[Any], params: dict[str, Any]
) -> list[dict[str, Any]]:
    name, start = query.name, time.perf_counter()
    result = await tx.run(cypher.load(name), params)
    rows = [record.data() async for record in result]
    summary = await result.consume()
    TIMES[name].append(time.perf_counter() - start)
    after = (summary.result_available_after or 0) + (summary.result_consumed_after or 0)
    SERVER[name].append(after / 1000)
    return rows


async def _timed(query: Query[Any], params: dict[str, Any], running: Awaitable[Any]) -> Any:
    start = time.perf_counter()
    rows = await running
    TIMES[query.name].append(time.perf_counter() - start)
    return rows


def _patch() -> None:
    intercept_queries(_timed_q, _timed)
    original_tx = GraphStore.write_transaction

    async def tx(self: GraphStore, work: Any) -> Any:
        inside: list[float] = []

        async def timed_work(t: AsyncManagedTransaction) -> Any:
            begun = time.perf_counter()
            try:
                return await work(t)
            finally:
                inside.append(time.perf_counter() - begun)

        start = time.perf_counter()
        result = await original_tx(self, timed_work)
        whole = time.perf_counter() - start
        SPANS.append((start - BEGAN[0], start + whole - BEGAN[0]))
        TIMES["(write transactions, whole: queries + commit)"].append(whole)
        TIMES["(write transactions, commit and begin)"].append(whole - sum(inside))
        return result

    GraphStore.write_transaction = tx  # type: ignore[method-assign]
    original_embed = Ingestor.embed

    async def embed(self: Ingestor, *a: Any) -> Any:
        start = time.perf_counter()
        result = await original_embed(self, *a)
        TIMES["(embed, prepare side)"].append(time.perf_counter() - start)
        return result

    Ingestor.embed = embed  # type: ignore[method-assign]


def neo4j_cpu_s(pid_file: str | None) -> float:
    """CPU seconds the Neo4j server process has used (user + system), 0 when not known."""
    if not pid_file:
        return 0.0
    pid = Path(pid_file).read_text(encoding="utf-8").strip()
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


CPU: dict[str, float] = {}
DELETES: dict[str, list[float]] = {}  # the per-query times of the single deletes after the sync
DELETES_SERVER: dict[str, list[float]] = {}


@contextlib.contextmanager
def _apart(times: dict[str, list[float]], server: dict[str, list[float]]) -> Iterator[None]:
    """Queries timed inside go to ``times`` and ``server``, not to the sync's tables."""
    kept = dict(TIMES), dict(SERVER)
    TIMES.clear()
    SERVER.clear()
    try:
        yield
    finally:
        times.update(TIMES)
        server.update(SERVER)
        for table, before in zip((TIMES, SERVER), kept, strict=True):
            table.clear()
            table.update(before)


async def _deletes(ingestor: Ingestor, folder: Path, count: int) -> None:
    """Delete ``count`` notes one at a time (seeded choice), each query timed."""
    paths = await asyncio.to_thread(
        lambda: sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.md"))
    )
    walls = []
    with _apart(DELETES, DELETES_SERVER):
        for path in random.Random(7).sample(paths, min(count, len(paths))):
            await asyncio.to_thread((folder / path).unlink)
            start = time.perf_counter()
            await ingestor.delete(path)
            walls.append(time.perf_counter() - start)
    DELETES["(one delete, whole)"] = walls


async def run(
    settings: Settings,
    count: int,
    profile: cProfile.Profile | None,
    pid_file: str | None = None,
    source: Path | None = None,
    deletes: int = 0,
    settle: float = 0.0,
) -> float:
    folder = Path(tempfile.mkdtemp(prefix=f"knotwork-profile-{count}-"))
    try:
        if source:
            shutil.copytree(source, folder, dirs_exist_ok=True)
        else:
            generate(folder, count)
        async with open_core(settings) as core:
            use_bench_embedder(core)
            await core.ensure_ready()
            vault = f"profile{count}"
            await core.store.drop_vault(vault)
            TIMES.clear()
            ingestor = Ingestor(core, root=folder, vault=vault, extract_enabled=False)
            if profile:
                profile.enable()
            SPANS.clear()
            start, cpu, server = time.perf_counter(), time.process_time(), neo4j_cpu_s(pid_file)
            BEGAN[0] = start
            await sync_vault(ingestor)
            whole = time.perf_counter() - start
            CPU["this process (parse, chunk, match, embedder stand-in, driver)"] = (
                time.process_time() - cpu
            )
            if pid_file:
                CPU["Neo4j server"] = neo4j_cpu_s(pid_file) - server
            if profile:
                profile.disable()
            if deletes:
                with _apart({}, {}):  # untimed, as the watcher runs it after its rescan
                    await rehearse(core)
                await asyncio.sleep(settle)  # the server's background work after a bulk write
                await _deletes(ingestor, folder, deletes)
            await core.store.drop_vault(vault)
        return whole
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--folder", type=Path, help="profile a copy of this folder instead")
    parser.add_argument("--cprofile", help="write cProfile stats of the sync here")
    parser.add_argument(
        "--neo4j-pid-file", help="the server's pid file: also report the CPU seconds it used"
    )
    parser.add_argument(
        "--embedder", choices=["http", "inprocess"], help="the stand-in (bench/common.py)"
    )
    parser.add_argument("--wipe", action="store_true", help="start from an empty database")
    parser.add_argument(
        "--deletes", type=int, default=0, help="then time this many single deletes, per query"
    )
    parser.add_argument("--settle", type=float, default=10.0, help="seconds before the deletes")
    args = parser.parse_args()
    if args.embedder:
        os.environ[EMBEDDER_ENV] = args.embedder
    _patch()
    profile = cProfile.Profile() if args.cprofile else None
    with bench_settings() as settings:
        if args.wipe:
            wipe_database(settings)
        whole = asyncio.run(
            run(
                settings,
                args.notes,
                profile,
                args.neo4j_pid_file,
                args.folder,
                args.deletes,
                args.settle,
            )
        )
    if profile and args.cprofile:
        profile.dump_stats(args.cprofile)
    notes = sum(1 for _ in args.folder.rglob("*.md")) if args.folder else args.notes
    print(f"whole sync: {whole:.2f} s, {notes} notes, {notes / whole:.0f} notes/s")
    for who, seconds in CPU.items():
        print(f"CPU seconds of {who}: {seconds:.1f}")
    if SPANS:
        spans = ", ".join(f"{a:.2f}–{b:.2f}" for a, b in SPANS)
        print(f"write transactions, s after the sync began: {spans}")
        print(
            f"the writer waited {SPANS[0][0]:.2f} s for its first batch; "
            f"{whole - SPANS[-1][1]:.2f} s ran after its last"
        )
    print()
    print("| query | calls | total s | Neo4j's own s | share of the sync |")
    print("|---|---:|---:|---:|---:|")
    for name, times in sorted(TIMES.items(), key=lambda kv: -sum(kv[1])):
        own = f"{sum(SERVER[name]):.2f}" if name in SERVER else ""
        print(f"| {name} | {len(times)} | {sum(times):.2f} | {own} | {sum(times) / whole:.0%} |")
    if DELETES:
        print()
        print("| single deletes: query | calls | median ms | max ms | total s | Neo4j's own s |")
        print("|---|---:|---:|---:|---:|---:|")
        for name, times in sorted(DELETES.items(), key=lambda kv: -sum(kv[1])):
            own = f"{sum(DELETES_SERVER[name]):.2f}" if name in DELETES_SERVER else ""
            median, most = sorted(times)[len(times) // 2] * 1000, max(times) * 1000
            print(
                f"| {name} | {len(times)} | {median:.1f} | {most:.1f} | {sum(times):.2f} | {own} |"
            )


if __name__ == "__main__":
    main()
