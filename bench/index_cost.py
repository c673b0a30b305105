"""What each index costs a sync: the server's CPU seconds over one whole-vault sync with the
schema as it is, with an index dropped, or with the vector indexes built with other options.

Usage (from the repository root; needs the server's pid file for its CPU time):
    .venv/bin/python -m bench.index_cost --pid-file /work/neo4j-local/bench/run/neo4j.pid \\
        [--notes 1000] [--settle 3] schema no-chunk-vectors quantization-off schema …

Each variant named on the command line is one run, in the order given (name a variant several
times, alternated with ``schema``, to see past the load): every node, constraint and index is
dropped, the variant's vector indexes are created, the schema applied (IF NOT EXISTS keeps them),
the variant's indexes dropped, and bench/ingest.py's vault synced once with the in-process
stand-in embedder. Printed per run: wall s, notes/s, this process's CPU s, the server's CPU s
over the sync and over the sync plus ``--settle`` seconds (background index work). Neo4j as in
bench/ingest.py; the database is wiped, so point it at a server of its own.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from neo4j import GraphDatabase

from bench.common import EMBEDDER_ENV, bench_settings, use_bench_embedder
from bench.compare import wipe
from bench.ingest import generate
from bench.profile_ingest import neo4j_cpu_s
from knotwork.core import open_core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.settings import Settings

LANGUAGE_INDEXES = [f"chunk_text_{c}" for c in ("en", "it", "de", "fr", "es", "pt")]
VECTOR_INDEXES = {
    "chunk_embedding": "Chunk",
    "note_embedding": "Note",
    "entity_embedding": "Entity",
}
# variant: (vector index options, indexes dropped before the sync)
VARIANTS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "schema": ({}, []),
    "quantization-off": ({"vector.quantization.enabled": False}, []),
    "ef-construction-64": ({"vector.hnsw.ef_construction": 64}, []),
    "ef-construction-40": ({"vector.hnsw.ef_construction": 40}, []),
    "no-chunk-vectors": ({}, ["chunk_embedding"]),
    "no-note-vectors": ({}, ["note_embedding"]),
    "no-language-fulltext": ({}, LANGUAGE_INDEXES),
    "no-chunk-words": ({}, ["chunk_words"]),
    "no-entity-names": ({}, ["entity_names"]),
}


def option(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else repr(value)


def prepare(driver: Any, settings: Settings, options: dict[str, Any]) -> None:
    """An empty database whose vector indexes carry ``options``; the rest comes from the schema."""
    wipe(driver, settings.neo4j_database)
    for name, label in VECTOR_INDEXES.items():
        config = {
            "vector.dimensions": settings.embed_dimension,
            "vector.similarity_function": "'cosine'",
            **{k: option(v) for k, v in options.items()},
        }
        body = ", ".join(f"`{k}`: {v}" for k, v in config.items())
        # Benchmark-only DDL: index names and options come from the fixed tables above.
        driver.execute_query(
            f"CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (x:{label}) ON x.embedding "
            f"OPTIONS {{indexConfig: {{{body}}}}}",
            database_=settings.neo4j_database,
        )


async def one_sync(
    settings: Settings, folder: Path, drops: list[str], pid_file: str, settle: float
) -> tuple[float, float, float, float]:
    async with open_core(settings) as core:
        use_bench_embedder(core)
        await core.ensure_ready()
        async with core.driver.session(database=settings.neo4j_database) as session:
            for name in drops:
                await (await session.run(f"DROP INDEX {name} IF EXISTS")).consume()
        ingestor = Ingestor(core, root=folder, vault="index-cost", extract_enabled=False)
        wall, cpu, server = time.perf_counter(), time.process_time(), neo4j_cpu_s(pid_file)
        await sync_vault(ingestor)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        during = neo4j_cpu_s(pid_file) - server
    await asyncio.sleep(settle)
    return wall, cpu, during, neo4j_cpu_s(pid_file) - server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("variants", nargs="+", choices=sorted(VARIANTS))
    parser.add_argument("--pid-file", required=True, help="the Neo4j server's pid file")
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--settle", type=float, default=3.0)
    args = parser.parse_args()
    os.environ[EMBEDDER_ENV] = "inprocess"
    folder = Path(tempfile.mkdtemp(prefix="knotwork-index-cost-"))
    try:
        generate(folder, args.notes)
        print("| variant | load | wall s | notes/s | this process CPU s | server CPU s | settled |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        with bench_settings() as settings:
            secret = settings.neo4j_password.get_secret_value() if settings.neo4j_password else ""
            auth = (settings.neo4j_user, secret)
            with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
                for name in args.variants:
                    options, drops = VARIANTS[name]
                    prepare(driver, settings, options)
                    time.sleep(2)
                    load = os.getloadavg()[0]
                    wall, cpu, server, settled = asyncio.run(
                        one_sync(settings, folder, drops, args.pid_file, args.settle)
                    )
                    print(
                        f"| {name} | {load:.1f} | {wall:.2f} | {args.notes / wall:.0f} | "
                        f"{cpu:.1f} | {server:.1f} | {settled:.1f} |",
                        flush=True,
                    )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
