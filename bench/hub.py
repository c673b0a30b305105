"""One-note edits beside a popular note: does an edit cost more as more notes point at one?

Every note of a generated vault mentions one hub note by name ("Hub Topic"), links to it
(``[[Hub Topic]]``) and links to one missing note (``[[Missing Hub]]``, a placeholder), as a
vault's index or daily-notes page is pointed at. An edit of such a note removes its facts and
writes them again, mentions of the hub included; an edit of the hub changes the note every
other note points at. Both are timed at each vault size: an edit that costs more as the hub's
fan-in grows does work in proportion to the vault, not to the note.

Usage (from the repository root, after scripts/bootstrap):
    .venv/bin/python -m bench.hub --notes 200 2000 8000 [--edits 20] [--settle 30]

Neo4j and the embedder as in bench/ingest.py (KNOTWORK_NEO4J_URI / KNOTWORK_NEO4J_PASSWORD, or
a local server; the hashing stand-in, ``KNOTWORK_BENCH_EMBEDDER=inprocess`` for no loopback
HTTP); model extraction off.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.common import bench_settings, use_bench_embedder
from bench.ingest import WORDS
from knotwork.core import open_core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.settings import Settings

HUB = "Hub Topic"


def generate(folder: Path, count: int, seed: int = 11) -> list[str]:
    """The hub note and ``count`` notes that each mention it, link to it and to a missing note."""
    rng = random.Random(seed)
    (folder / f"{HUB}.md").write_text(
        f"# {HUB}\n\nWhere the work on the topic is gathered.\n", encoding="utf-8"
    )
    paths = []
    for i in range(count):
        sub = folder / f"area{i % 20}"
        sub.mkdir(parents=True, exist_ok=True)
        text = " ".join(rng.choices(WORDS, k=40))
        (sub / f"Note {i:05d}.md").write_text(
            f"# Note {i:05d}\n\n{text}.\n\nThis note adds to {HUB} and [[{HUB}]]; see "
            f"[[Missing Hub]].\n",
            encoding="utf-8",
        )
        paths.append(f"area{i % 20}/Note {i:05d}.md")
    return paths


def _ms(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return f"{statistics.median(times) * 1000:.0f} / {p95 * 1000:.0f}"


async def measure(settings: Settings, count: int, edits: int, settle: float) -> dict[str, str]:
    folder = Path(tempfile.mkdtemp(prefix=f"knotwork-hub-{count}-"))
    vault = f"hub{count}"
    try:
        paths = generate(folder, count)
        async with open_core(settings) as core:
            use_bench_embedder(core)
            await core.ensure_ready()
            await core.store.drop_vault(vault)
            ingestor = Ingestor(core, root=folder, vault=vault, extract_enabled=False)
            start = time.perf_counter()
            report = await sync_vault(ingestor)
            synced = time.perf_counter() - start
            assert report.written == count + 1, report.errors[:3]
            await asyncio.sleep(settle)
            rng = random.Random(3)
            leaf, hub = [], []
            for n in range(edits):
                path = rng.choice(paths)
                file = folder / path
                file.write_text(file.read_text() + f"\nEdit {n} on {HUB}.\n", encoding="utf-8")
                start = time.perf_counter()
                await ingestor.upsert_path(path)
                leaf.append(time.perf_counter() - start)
                file = folder / f"{HUB}.md"
                file.write_text(file.read_text() + f"\nEdit {n}.\n", encoding="utf-8")
                start = time.perf_counter()
                await ingestor.upsert_path(f"{HUB}.md")
                hub.append(time.perf_counter() - start)
            await core.store.drop_vault(vault)
        return {
            "notes": f"{count:,}",
            "sync": f"{synced:.1f} s",
            "leaf": _ms(leaf),
            "hub": _ms(hub),
            "load": f"{os.getloadavg()[0]:.1f}",
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--notes", type=int, nargs="+", default=[200, 2000, 8000])
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--settle", type=float, default=30.0)
    args = parser.parse_args()
    with bench_settings() as settings:
        rows = [await measure(settings, n, args.edits, args.settle) for n in args.notes]
    lines = [
        "| notes pointing at the hub | sync | edit of one of them, median / p95 ms "
        "| edit of the hub, median / p95 ms | load after |",
        "|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {r['notes']} | {r['sync']} | {r['leaf']} | {r['hub']} | {r['load']} |" for r in rows
    ]
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    asyncio.run(main())
