"""Ingest benchmark: whole-vault notes/s and the time of one note update, at several sizes.

Usage (from the repository root, after scripts/bootstrap):
    .venv/bin/python -m bench.ingest --notes 1000 10000 [--updates 30] [--rounds 1]
        [--warmup 0] [--settle 60] [--wipe] [--record]

Neo4j: KNOTWORK_NEO4J_URI / KNOTWORK_NEO4J_PASSWORD when set, else a local server (instance
``bench``, Bolt 27688) started from the cached jars and stopped at the end. Embeddings come from
the loopback Ollama stand-in (hashing embedder), so the figures measure Knotwork and Neo4j, not a
model; model extraction is off. ``--record`` appends the table to bench/RESULTS.md.

Beside the ingest, the embedder alone is timed on exactly the texts the sync embeds, in the
same ``aget_text_embedding_batch`` calls with the same batch size ("embedder alone"), so
"ingest / embedder" says how close ingest comes to the embedder's own throughput; ``--rounds``
alternates the two (embedder, sync, embedder, sync …) after ``--warmup`` syncs not counted.
Another embedder is measured through the usual settings, e.g. the in-process multilingual one:
``KNOTWORK_EMBED_PROVIDER=use-multilingual KNOTWORK_EMBED_MODEL=use-multilingual-v3
KNOTWORK_EMBED_DIMENSION=512 … --rounds 2 --warmup 1 --wipe``; ``--wipe`` empties the database
first, since the manifest refuses a database built with another embedder. Both the embedder alone
and the sync use the one embedder of the core, so ``KNOTWORK_EMBED_WORKER`` (a worker process,
or a thread of this one) applies to both; "CPU s" is this process's, "(worker)" the worker's.

The one-note updates start ``--settle`` seconds after the last sync: after a bulk write Neo4j
keeps working in the background for a while (index segment merges, most likely), and edits
timed in that window measure that work, not the edit (at 10,000 notes, 286 ms median right
after the sync against 77 ms 90 s later, on one server; 69 ms at 1,000). ``--settle 0`` times
them right away.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import bench_settings, record, use_bench_embedder
from knotwork.core import Core, open_core
from knotwork.ingest.changes import Upsert
from knotwork.ingest.chunk import chunk_note
from knotwork.ingest.draft import embed_inputs
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.parse import parse_note
from knotwork.ingest.sync import sync_vault
from knotwork.settings import Settings
from knotwork.vault.files import scan_notes

try:  # the unit a sync drafts and embeds at a time
    from knotwork.ingest.pipeline import units as embedded_units
except ImportError:  # code before ingest/pipeline.py (to measure it beside): one per batch
    from knotwork.ingest.sync import _batches as embedded_units  # type: ignore[attr-defined,no-redef]

WORDS = [
    "graph",
    "note",
    "link",
    "vault",
    "model",
    "query",
    "index",
    "chunk",
    "fact",
    "entity",
    "project",
    "team",
    "design",
    "release",
    "budget",
    "review",
    "meeting",
    "draft",
    "plan",
    "status",
]


def generate(folder: Path, count: int, seed: int = 7) -> list[str]:
    """A vault of ``count`` notes with frontmatter, links, tags and a few paragraphs each."""
    rng = random.Random(seed)
    names = [f"Note {i:05d}" for i in range(count)]
    for i, name in enumerate(names):
        sub = folder / f"area{i % 20}"
        sub.mkdir(parents=True, exist_ok=True)
        links = rng.sample(names, k=min(3, count))
        paragraphs = [" ".join(rng.choices(WORDS, k=40)) + "." for _ in range(3)]
        (sub / f"{name}.md").write_text(
            f"---\nstatus: {rng.choice(['active', 'done'])}\nrole: {rng.choice(WORDS)}\n---\n"
            f"# {name}\n\n{paragraphs[0]}\n\n{name} works with [[{links[0]}]] and "
            f"[[{links[1]}]].\n\n## Details\n\n{paragraphs[1]} #{rng.choice(WORDS)}\n\n"
            f"See also [[{links[2]}]] and [[Missing {i % 50}]].\n\n{paragraphs[2]}\n",
            encoding="utf-8",
        )
    return [f"area{i % 20}/{name}.md" for i, name in enumerate(names)]


def embedded_calls(folder: Path, vault: str, settings: Settings) -> list[list[str]]:
    """The texts a whole-vault sync of ``folder`` sends the embedder, one list per
    ``aget_text_embedding_batch`` call: its notes in the sync's order and units, each note's
    chunks as ingest cuts them (the embedder splits each call by ``embed_batch_size``)."""
    paths = scan_notes(folder).paths
    notes = [Upsert(p, (folder / p).read_text(encoding="utf-8")) for p in paths]
    return [
        [
            text
            for change in batch
            for text in embed_inputs(
                chunk_note(parse_note(change.path, change.text), vault, settings.chunk_size)
            )
        ]
        for batch in embedded_units(notes, settings.ingest_batch)
    ]


def worker_cpu(core: Core) -> float:
    """CPU seconds the in-process embedder's worker process has used so far (0 without one:
    ``KNOTWORK_EMBED_WORKER=thread``, or another provider), from ``/proc``."""
    pid = getattr(core.embedder, "worker_pid", None)
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


async def embedder_alone(core: Core, calls: list[list[str]]) -> tuple[float, float, float]:
    """Wall seconds, this process's and the embedder worker's CPU seconds the configured
    embedder alone takes for ``calls``, made as ingest makes them: the ceiling ingest is
    measured against."""
    start, cpu, worker = time.perf_counter(), time.process_time(), worker_cpu(core)
    for texts in calls:
        vectors = await core.embedder.aget_text_embedding_batch(texts)
        assert len(vectors) == len(texts)
    return time.perf_counter() - start, time.process_time() - cpu, worker_cpu(core) - worker


async def measure(
    settings: Settings,
    count: int,
    updates: int,
    rounds: int,
    warmup: int = 0,
    settle: float = 0.0,
) -> dict[str, Any]:
    """``rounds`` rounds of the embedder alone, then a whole-vault sync from an empty vault,
    alternated, after ``warmup`` syncs not counted; then, ``settle`` seconds later, ``updates``
    one-note edits. Medians of the rounds, and each round."""
    folder = Path(tempfile.mkdtemp(prefix=f"knotwork-bench-{count}-"))
    try:
        paths = generate(folder, count)
        vault = f"bench{count}"
        calls = embedded_calls(folder, vault, settings)
        texts = sum(map(len, calls))
        per_round: list[dict[str, float]] = []
        async with open_core(settings) as core:
            use_bench_embedder(core)  # KNOTWORK_BENCH_EMBEDDER=inprocess: no loopback HTTP
            await core.ensure_ready()
            await core.embedder.aget_text_embedding_batch(calls[0][:8])  # loaded, warm
            ingestor = Ingestor(core, root=folder, vault=vault, extract_enabled=False)
            for _ in range(warmup):  # the server's query plans and caches, not counted
                await core.store.drop_vault(vault)
                await sync_vault(ingestor)
            for _ in range(rounds):
                load = os.getloadavg()[0]
                alone, alone_cpu, alone_worker = await embedder_alone(core, calls)
                await core.store.drop_vault(vault)
                start, cpu, worker = time.perf_counter(), time.process_time(), worker_cpu(core)
                report = await sync_vault(ingestor)
                whole, whole_cpu = time.perf_counter() - start, time.process_time() - cpu
                whole_worker = worker_cpu(core) - worker
                assert report.written == count, report.errors[:3]
                assert report.embedded == texts, (report.embedded, texts)
                per_round.append(
                    {
                        "load": load,
                        "embed_s": alone,
                        "embed_cpu_s": alone_cpu,
                        "embed_worker_cpu_s": alone_worker,
                        "ingest_s": whole,
                        "ingest_cpu_s": whole_cpu,
                        "ingest_worker_cpu_s": whole_worker,
                    }
                )
            if updates and settle:
                await asyncio.sleep(settle)
            rng = random.Random(1)
            times = []
            for n in range(updates):
                path = rng.choice(paths)
                file = folder / path
                file.write_text(file.read_text() + f"\nEdit {n}: works with [[Note 00001]].\n")
                start = time.perf_counter()
                await ingestor.upsert_path(path)
                times.append(time.perf_counter() - start)
            await core.store.drop_vault(vault)
        whole = statistics.median(r["ingest_s"] for r in per_round)
        alone = statistics.median(r["embed_s"] for r in per_round)
        return {
            "notes": count,
            "chunks": report.chunks,
            "texts": texts,
            "seconds": whole,
            "notes_per_s": count / whole,
            "chunks_per_s": report.chunks / whole,
            "embed_chunks_per_s": texts / alone,
            "update_median_ms": statistics.median(times) * 1000 if times else float("nan"),
            "update_p95_ms": sorted(times)[int(0.95 * (len(times) - 1))] * 1000
            if times
            else float("nan"),
            "rounds": per_round,
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def rounds_table(row: dict[str, Any]) -> str:
    """Each round of one vault size: the embedder alone beside the ingest, in run order."""
    lines = [
        f"Rounds at {row['notes']} notes ({row['texts']} texts embedded, one per chunk):\n",
        "| round | load before | embedder alone | texts/s = chunks/s | CPU s (worker) | ingest "
        "| notes/s | chunks/s | CPU s (worker) | ingest / embedder |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for i, r in enumerate(row["rounds"], 1):
        lines.append(
            f"| {i} | {r['load']:.2f} | {r['embed_s']:.1f} s | {row['texts'] / r['embed_s']:.0f} "
            f"| {r['embed_cpu_s']:.1f} ({r['embed_worker_cpu_s']:.1f}) | {r['ingest_s']:.1f} s "
            f"| {row['notes'] / r['ingest_s']:.1f} | {row['chunks'] / r['ingest_s']:.0f} "
            f"| {r['ingest_cpu_s']:.1f} ({r['ingest_worker_cpu_s']:.1f}) "
            f"| {r['embed_s'] / r['ingest_s']:.0%} |"
        )
    return "\n".join(lines)


def wipe_database(settings: Settings) -> None:
    from neo4j import GraphDatabase

    from bench.compare import wipe  # bench.compare imports this module

    auth = (settings.neo4j_user, settings.password())
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        wipe(driver, settings.neo4j_database)


def _ms(value: float) -> str:
    """Milliseconds, or a dash when nothing was timed (``--updates 0``)."""
    return "—" if math.isnan(value) else f"{value:.0f} ms"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--updates", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=0, help="syncs before the rounds")
    parser.add_argument(
        "--settle",
        type=float,
        default=60.0,
        help="seconds between the last sync and the first timed update (see the docstring)",
    )
    parser.add_argument(
        "--wipe",
        action="store_true",
        help="empty the database first (every node, constraint and index): a database built "
        "with another embedder is refused otherwise",
    )
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    uptime_before = os.getloadavg()
    with bench_settings() as settings:
        if args.wipe:
            wipe_database(settings)
        rows = [
            await measure(settings, count, args.updates, args.rounds, args.warmup, args.settle)
            for count in args.notes
        ]
        embedder = (
            f"embedder {settings.embed_provider} {settings.embed_model} "
            f"({settings.embed_dimension} dimensions, batch {settings.embed_batch_size}, "
            f"{settings.embed_threads} thread(s), worker {settings.embed_worker}), "
            f"ingest batch {settings.ingest_batch}; "
            f"updates timed {args.settle:g} s after the last sync"
        )
    uptime_after = os.getloadavg()
    table = [
        "| notes | chunks | whole-vault ingest | notes/s | chunks/s | embedder alone, chunks/s "
        "| ingest / embedder | one update, median | p95 |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    table += [
        f"| {r['notes']:.0f} | {r['chunks']:.0f} | {r['seconds']:.1f} s | "
        f"{r['notes_per_s']:.0f} | {r['chunks_per_s']:.0f} | {r['embed_chunks_per_s']:.0f} | "
        f"{r['chunks_per_s'] / r['embed_chunks_per_s']:.0%} | {_ms(r['update_median_ms'])} | "
        f"{_ms(r['update_p95_ms'])} |"
        for r in rows
    ]
    if len(rows) >= 2:
        ratio = rows[-1]["update_median_ms"] / rows[0]["update_median_ms"]
        table.append(
            f"\nOne-update ratio, {rows[-1]['notes']:.0f} vs {rows[0]['notes']:.0f} "
            f"notes (median): {ratio:.2f}×"
        )
    table += ["", *(rounds_table(r) + "\n" for r in rows)]
    text = "\n".join(table)
    load = "load average {:.2f} / {:.2f} / {:.2f} before, {:.2f} / {:.2f} / {:.2f} after".format(
        *uptime_before, *uptime_after
    )
    print(f"{embedder}; {load}\n{text}")
    if args.record:
        record(
            "Ingest",
            ".venv/bin/python -m bench.ingest " + shlex.join(sys.argv[1:]),
            f"Neo4j 5.26 local, {embedder}, extraction off; {load}.",
            text,
        )


if __name__ == "__main__":
    asyncio.run(main())
