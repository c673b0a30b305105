"""Save → visible to retrieval: how long after a file is saved does `/retrieve` find its text?

Usage (from the repository root, after scripts/bootstrap):
    .venv/bin/python -m bench.visibility [--notes 1000] [--edits 50] [--record]

A watcher (default 300 ms debounce) follows a generated vault; each edit writes a unique word
into a random note, then the retrieval path behind `POST /retrieve` is polled every 10 ms until
that note comes back for the word. Neo4j and the embedder are set up as in bench/ingest.py.
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

from bench.common import bench_settings, record
from bench.ingest import generate
from knotwork.core import open_core
from knotwork.ingest import Ingestor
from knotwork.lease import Lease
from knotwork.retrieve import retrieve
from knotwork.settings import Settings
from knotwork.watcher import VaultWatcher


async def measure(settings: Settings, notes: int, edits: int) -> list[float]:
    folder = Path(tempfile.mkdtemp(prefix="knotwork-visibility-"))
    paths = generate(folder, notes)
    try:
        async with open_core(settings) as core:
            await core.ensure_ready()
            await core.store.drop_vault("visibility")
            ingestor = Ingestor(core, root=folder, vault="visibility", extract_enabled=False)
            watcher = VaultWatcher(ingestor, Lease(core.store, "visibility", 30))
            ready = asyncio.Event()
            task = asyncio.create_task(watcher.run(ready=ready))
            await ready.wait()
            rng = random.Random(3)
            delays = []
            for n in range(edits):
                path = rng.choice(paths)
                word = f"zqx{n:04d}visible"
                file = folder / path
                file.write_text(file.read_text() + f"\nA new thought: {word}.\n")
                saved = time.perf_counter()
                while True:
                    evidence = await retrieve(core, "visibility", word, top_k=3)
                    if any(hit.path == path and word in hit.text for hit in evidence.hits):
                        break
                    if time.perf_counter() - saved > 30:
                        raise RuntimeError(f"{word} not visible after 30 s")
                    await asyncio.sleep(0.01)
                delays.append(time.perf_counter() - saved)
            watcher.stop()
            await task
            await core.store.drop_vault("visibility")
        return delays
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    with bench_settings() as settings:
        delays = await measure(settings, args.notes, args.edits)
    ms = sorted(d * 1000 for d in delays)
    p95 = ms[int(0.95 * (len(ms) - 1))]
    text = (
        f"| vault | edits | median | p95 | max |\n|---:|---:|---:|---:|---:|\n"
        f"| {args.notes} notes | {len(ms)} | {statistics.median(ms):.0f} ms | {p95:.0f} ms | "
        f"{ms[-1]:.0f} ms |"
    )
    print(text)
    if args.record:
        record(
            "Save → visible to retrieval",
            f".venv/bin/python -m bench.visibility --notes {args.notes} --edits {args.edits} "
            "--record",
            "Neo4j 5.26 local, fake embedder, extraction off, watcher debounce 300 ms "
            "(inotify). Time from the file write until the retrieval path behind "
            "`POST /retrieve` returns the note for the new word; it includes the debounce.",
            text,
        )


if __name__ == "__main__":
    asyncio.run(main())
