"""Ingest benchmark: whole-vault notes/s and the time of one note update, at several sizes.

Usage (from the repository root, after scripts/bootstrap):
    .venv/bin/python -m bench.ingest --notes 1000 10000 [--updates 30] [--record]

Neo4j: KNOTWORK_NEO4J_URI / KNOTWORK_NEO4J_PASSWORD when set, else a local server (instance
``bench``, Bolt 27688) started from the cached jars and stopped at the end. Embeddings come from
the loopback Ollama stand-in (hashing embedder), so the figures measure Knotwork and Neo4j, not a
model; model extraction is off. ``--record`` appends the table to bench/RESULTS.md.

Beside the ingest, the embedder alone is timed on the same chunk texts with the same batch size
("embedder alone"), so "ingest / embedder" says how close ingest comes to the embedder's own
throughput. Another embedder is measured through the usual settings, e.g.
``KNOTWORK_EMBED_PROVIDER=sentence-transformers KNOTWORK_EMBED_MODEL=… KNOTWORK_EMBED_DIMENSION=…``
on a database built with it (the manifest refuses a mix).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench.common import bench_settings, record, use_bench_embedder
from knotwork.core import Core, open_core
from knotwork.ingest.chunk import chunk_note
from knotwork.ingest.draft import embed_inputs
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.parse import parse_note
from knotwork.ingest.sync import sync_vault
from knotwork.settings import Settings

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


async def embedder_alone(core: Core, folder: Path, paths: list[str]) -> float:
    """Seconds the configured embedder alone takes for the vault's chunk texts, in batches of
    ``KNOTWORK_EMBED_BATCH_SIZE`` as ingest sends them: the ceiling ingest is measured against."""
    texts = []
    for path in paths:
        note = parse_note(path, (folder / path).read_text(encoding="utf-8"))
        texts += embed_inputs(chunk_note(note, "alone", core.settings.chunk_size))
    start = time.perf_counter()
    step = 2 * core.settings.ingest_batch  # what one sync batch asks at once (two chunks a note)
    for i in range(0, len(texts), step):
        await core.embedder.aget_text_embedding_batch(texts[i : i + step])
    return time.perf_counter() - start


async def measure(settings: Settings, count: int, updates: int) -> dict[str, float]:
    folder = Path(tempfile.mkdtemp(prefix=f"knotwork-bench-{count}-"))
    try:
        paths = generate(folder, count)
        async with open_core(settings) as core:
            use_bench_embedder(core)  # KNOTWORK_BENCH_EMBEDDER=inprocess: no loopback HTTP
            await core.ensure_ready()
            vault = f"bench{count}"
            await core.store.drop_vault(vault)
            ingestor = Ingestor(core, root=folder, vault=vault, extract_enabled=False)
            start = time.perf_counter()
            report = await sync_vault(ingestor)
            whole = time.perf_counter() - start
            assert report.written == count, report.errors[:3]
            embed_alone = await embedder_alone(core, folder, paths)
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
        return {
            "notes": count,
            "chunks": report.chunks,
            "seconds": whole,
            "notes_per_s": count / whole,
            "chunks_per_s": report.chunks / whole,
            "embed_chunks_per_s": report.chunks / embed_alone,
            "update_median_ms": statistics.median(times) * 1000,
            "update_p95_ms": sorted(times)[int(0.95 * (len(times) - 1))] * 1000,
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--updates", type=int, default=30)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    with bench_settings() as settings:
        rows = [await measure(settings, count, args.updates) for count in args.notes]
    table = [
        "| notes | chunks | whole-vault ingest | notes/s | chunks/s | embedder alone, chunks/s "
        "| ingest / embedder | one update, median | p95 |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    table += [
        f"| {r['notes']:.0f} | {r['chunks']:.0f} | {r['seconds']:.1f} s | "
        f"{r['notes_per_s']:.0f} | {r['chunks_per_s']:.0f} | {r['embed_chunks_per_s']:.0f} | "
        f"{r['chunks_per_s'] / r['embed_chunks_per_s']:.0%} | {r['update_median_ms']:.0f} ms | "
        f"{r['update_p95_ms']:.0f} ms |"
        for r in rows
    ]
    if len(rows) >= 2:
        ratio = rows[-1]["update_median_ms"] / rows[0]["update_median_ms"]
        table.append(
            f"\nOne-update ratio, {rows[-1]['notes']:.0f} vs {rows[0]['notes']:.0f} "
            f"notes (median): {ratio:.2f}×"
        )
    text = "\n".join(table)
    print(text)
    if args.record:
        record(
            "Ingest",
            f".venv/bin/python -m bench.ingest --notes "
            f"{' '.join(map(str, args.notes))} --updates {args.updates} --record",
            "Neo4j 5.26 local, fake embedder, extraction off.",
            text,
        )


if __name__ == "__main__":
    asyncio.run(main())
