"""How long a watched vault takes to settle after a burst: N small notes copied in at once, as
a folder dragged into the vault or a `git checkout` does. Batched (the watcher's way) against
one note at a time (its way before, the same code with batches of one), alternated.

    python -m bench.watch_burst --notes 2000 --rounds 2

Settled: every note applied, no event for a moment, the watcher idle; then `verify` must find
no difference. Neo4j as in bench/common.py (a database of its own is wiped per round).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import tempfile
import time
from pathlib import Path

from bench.common import bench_settings, cpu_model
from knotwork.check.verify import verify_vault
from knotwork.core import open_core
from knotwork.graph.lease import Lease
from knotwork.ingest.ingestor import Ingestor
from knotwork.settings import Settings
from knotwork.watch import bulk
from knotwork.watch.watcher import VaultWatcher


async def _round(base: Settings, notes: int, batched: bool) -> tuple[float, int]:
    """Seconds from the copy's start until the watcher settled, and verify's differences."""
    tmp = Path(tempfile.mkdtemp(prefix="knotwork-burst-"))
    vault, source = tmp / "vault", tmp / "source"
    vault.mkdir()
    source.mkdir()
    for i in range(notes):
        text = f"# N{i}\n\nA small note linking [[n{(i + 1) % notes:05d}]].\n"
        (source / f"n{i:05d}.md").write_text(text)
    saved = bulk.BATCH_MAX
    bulk.BATCH_MAX = saved if batched else 1  # batches of one: the watcher's way before
    settings = base.model_copy(
        update={"watch_debounce_ms": 300, "watch_rescan_s": 0, "watch_queue_max": 10**6}
    )
    try:
        async with open_core(settings) as core:
            await core.ensure_ready()
            await core.store.drop_vault("burst")
            ingestor = Ingestor(core, root=vault, vault="burst", extract_enabled=False)
            watcher = VaultWatcher(ingestor, Lease(core.store, "burst", 30))
            ready = asyncio.Event()
            task = asyncio.create_task(watcher.run(ready=ready))
            await asyncio.wait_for(ready.wait(), 120)
            started = time.monotonic()
            await asyncio.to_thread(shutil.copytree, source, vault / "copied")
            seen = -1
            while not (
                watcher.status.events == seen and watcher.idle and watcher.status.processed >= notes
            ):
                seen = watcher.status.events
                await asyncio.sleep(0.3)
            settled = time.monotonic() - started
            differences = len(await verify_vault(ingestor))
            watcher.stop()
            await asyncio.wait_for(task, 120)
            await core.store.drop_vault("burst")
    finally:
        bulk.BATCH_MAX = saved
        shutil.rmtree(tmp, ignore_errors=True)
    return settled, differences


async def main(notes: int, rounds: int) -> None:
    print(f"machine: {os.cpu_count()} cores, {cpu_model()}; load {os.getloadavg()}")
    with bench_settings() as base:
        for r in range(1, rounds + 1):
            for batched in (True, False):
                settled, differences = await _round(base, notes, batched)
                way = "batched" if batched else "one by one"
                print(
                    f"round {r} {way:>10}: {notes} notes settled in {settled:.1f} s "
                    f"({settled / notes * 1000:.1f} ms a note), verify differences "
                    f"{differences}, load {os.getloadavg()[0]:.2f}"
                )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    asyncio.run(main(args.notes, args.rounds))
