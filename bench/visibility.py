"""Save → visible over HTTP: how long after a file is saved does `POST /retrieve` find its text?

Usage (from the repository root, after scripts/bootstrap):
    .venv/bin/python -m bench.visibility [--notes 1000] [--edits 50] [--record]

A watcher (default 300 ms debounce) follows a generated vault in this process; the real API runs
as `knotwork serve` (uvicorn) in a subprocess on a free loopback port, with an API key. Each edit
writes a unique word into a random note, then `POST /retrieve` is sent with httpx every 10 ms
until the note comes back for the word from the full-text retriever (which only matches chunks
holding it). Neo4j and the embedder are set up as in bench/ingest.py.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
from pydantic import SecretStr

from bench.common import bench_settings, record
from bench.ingest import generate
from knotwork.core import open_core
from knotwork.graph.lease import Lease
from knotwork.ingest.ingestor import Ingestor
from knotwork.settings import Settings
from knotwork.watch.watcher import VaultWatcher

VAULT = "visibility"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _environment(settings: Settings) -> dict[str, str]:
    """The settings as the ``KNOTWORK_*`` variables a deployment would give `knotwork serve`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KNOTWORK_")}
    for name in Settings.model_fields:
        value = getattr(settings, name)
        if value is None:
            continue
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        elif isinstance(value, bool):
            value = "true" if value else "false"
        env[f"KNOTWORK_{name.upper()}"] = str(value)
    return env


@contextlib.asynccontextmanager
async def serve_api(settings: Settings, workdir: Path) -> AsyncIterator[httpx.AsyncClient]:
    """`knotwork serve` in a subprocess on a free loopback port; a client for it once it answers."""
    key = settings.api_key.get_secret_value() if settings.api_key else secrets.token_urlsafe(24)
    port = _free_port()
    served = settings.model_copy(
        update={"api_host": "127.0.0.1", "api_port": port, "api_key": SecretStr(key)}
    )
    log_path = workdir / "serve.log"
    with log_path.open("wb") as log:
        server = await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "knotwork.cli", "serve"),
            env=_environment(served),
            cwd=workdir,  # no stray .env is read
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(
            base_url=base, headers={"X-API-Key": key}, timeout=30
        ) as client:
            deadline = time.monotonic() + 120
            while True:
                if server.returncode is not None:
                    raise RuntimeError(f"knotwork serve exited:\n{log_path.read_text()[-3000:]}")
                with contextlib.suppress(httpx.TransportError):
                    if (await client.get("/health")).status_code in (200, 503):
                        break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{base} did not answer in 120 s")
                await asyncio.sleep(0.2)
            yield client
    finally:
        if server.returncode is None:
            server.terminate()
            await asyncio.wait_for(server.wait(), 30)


async def _visible(client: httpx.AsyncClient, path: str, word: str) -> bool:
    response = await client.post("/retrieve", json={"question": word, "top_k": 3})
    response.raise_for_status()
    return any(
        c["path"] == path and "fulltext" in c["retrievers"] for c in response.json()["citations"]
    )


async def measure(settings: Settings, notes: int, edits: int) -> list[float]:
    folder = Path(tempfile.mkdtemp(prefix="knotwork-visibility-"))
    vault = folder / "vault"
    paths = generate(vault, notes)
    settings = settings.model_copy(update={"vault_name": VAULT, "vault_path": vault})
    try:
        async with open_core(settings) as core:
            await core.ensure_ready()
            await core.store.drop_vault(VAULT)
            async with serve_api(settings, folder) as client:
                ingestor = Ingestor(core, root=vault, vault=VAULT, extract_enabled=False)
                watcher = VaultWatcher(ingestor, Lease(core.store, VAULT, 30))
                ready = asyncio.Event()
                task = asyncio.create_task(watcher.run(ready=ready))
                await ready.wait()
                rng = random.Random(3)
                delays = []
                for n in range(edits):
                    path = rng.choice(paths)
                    word = f"zqx{n:04d}visible"
                    file = vault / path
                    file.write_text(file.read_text() + f"\nA new thought: {word}.\n")
                    saved = time.perf_counter()
                    while not await _visible(client, path, word):
                        if time.perf_counter() - saved > 30:
                            raise RuntimeError(f"{word} not visible after 30 s")
                        await asyncio.sleep(0.01)
                    delays.append(time.perf_counter() - saved)
                watcher.stop()
                await task
            await core.store.drop_vault(VAULT)
        return delays
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    with bench_settings() as settings:
        delays = await measure(settings, args.notes, args.edits)
    load = f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after"  # others share the cores
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
            "Save → visible over HTTP (`POST /retrieve`)",
            f".venv/bin/python -m bench.visibility --notes {args.notes} --edits {args.edits} "
            "--record",
            "Neo4j 5.26 local, fake embedder, extraction off, watcher debounce 300 ms "
            "(inotify) in the bench process; the API as `knotwork serve` (uvicorn) in a "
            "subprocess on a loopback port, with an API key. Time from the file write until "
            "`POST /retrieve`, sent with httpx every 10 ms, returns the note for the new word "
            "from the full-text retriever; it includes the debounce and the HTTP round trips. "
            f"One-minute load average {load}.",
            text,
        )


if __name__ == "__main__":
    asyncio.run(main())
