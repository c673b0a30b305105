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
import os
import platform
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from tests.fakes.ollama import FakeOllama

from bench.ingest import ROOT, generate
from knotwork.core import open_core
from knotwork.ingest import Ingestor
from knotwork.lease import Lease
from knotwork.neo4j_local import LocalNeo4j
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
    fake = FakeOllama().start()
    local = None
    overrides: dict[str, object] = {"ollama_base_url": fake.base_url, "extract": False}
    if not os.environ.get("KNOTWORK_NEO4J_URI"):
        local = LocalNeo4j(
            Settings(
                _env_file=None,
                neo4j_uri="bolt://127.0.0.1:27688",  # type: ignore[call-arg]
                neo4j_password="knotwork-bench-password",
                neo4j_local_dir=ROOT / ".neo4j",
                neo4j_local_instance="bench",
                neo4j_local_http_port=27475,
            )
        )
        local.start()
        overrides |= {
            "neo4j_uri": "bolt://127.0.0.1:27688",
            "neo4j_password": "knotwork-bench-password",
        }
    try:
        delays = await measure(Settings(**overrides), args.notes, args.edits)  # type: ignore[arg-type]
    finally:
        fake.stop()
        if local:
            local.stop()
    ms = sorted(d * 1000 for d in delays)
    p95 = ms[int(0.95 * (len(ms) - 1))]
    text = (
        f"| vault | edits | median | p95 | max |\n|---:|---:|---:|---:|---:|\n"
        f"| {args.notes} notes | {len(ms)} | {statistics.median(ms):.0f} ms | {p95:.0f} ms | "
        f"{ms[-1]:.0f} ms |"
    )
    print(text)
    if args.record:
        machine = (
            f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
        )
        with (ROOT / "bench" / "RESULTS.md").open("a", encoding="utf-8") as out:
            out.write(
                f"\n## Save → visible to retrieval ({time.strftime('%Y-%m-%d')})\n\n"
                f"Command: `.venv/bin/python -m bench.visibility --notes {args.notes} "
                f"--edits {args.edits} --record`  \nMachine: {machine}; Neo4j 5.26 local, "
                "fake embedder, extraction off, watcher debounce 300 ms (inotify). Time "
                "from the file write until the retrieval path behind `POST /retrieve` "
                "returns the note for the new word; it includes the debounce.\n\n"
                f"{text}\n"
            )


if __name__ == "__main__":
    asyncio.run(main())
