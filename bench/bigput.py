"""A very large note written over REST while other requests keep coming.

Usage (from the repository root, after scripts/bootstrap):
    .venv/bin/python -m bench.bigput [--megabytes 1.9] [--record]

The real API (uvicorn in a thread of this process) serves an empty vault; one client `PUT`s a
generated note of ``--megabytes`` (headings, paragraphs, wikilinks: about a thousand chunks)
while another sends `GET /stats` every 100 ms. Reported: how long the `PUT` took, and the
latency of the other requests meanwhile — parsing, chunking and mention matching run off the
event loop, so the other requests must not wait for the big note.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

import httpx
from tests.integration.server import free_port, serving

from bench.common import bench_settings, record
from bench.ingest import WORDS
from knotwork.api import create_app


def big_note(megabytes: float, seed: int = 3) -> str:
    rng = random.Random(seed)
    parts, size, section = ["# The big note\n\n"], 0, 0
    while size < megabytes * 1_000_000:
        if rng.random() < 0.05:
            section += 1
            parts.append(f"\n## Section {section}\n\n")
        words = rng.choices(WORDS, k=60)
        words[rng.randrange(60)] = f"[[Note {rng.randrange(500):05d}]]"
        parts.append(" ".join(words) + ".\n\n")
        size += len(parts[-1])
    return "".join(parts)


async def run(base: str, text: str) -> tuple[int, float, list[float]]:
    async with httpx.AsyncClient(base_url=base, timeout=3600) as client:
        done = asyncio.Event()
        pings: list[float] = []

        async def put() -> tuple[int, float]:
            started = time.perf_counter()
            response = await client.put(
                "/notes/Big.md", content=text.encode(), headers={"Content-Type": "text/markdown"}
            )
            done.set()
            return response.status_code, time.perf_counter() - started

        async def ping() -> None:
            while not done.is_set():
                started = time.perf_counter()
                await client.get("/stats")
                pings.append((time.perf_counter() - started) * 1000)
                await asyncio.sleep(0.1)

        pinging = asyncio.create_task(ping())
        status, seconds = await put()
        await pinging
    return status, seconds, pings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--megabytes", type=float, default=1.9)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    text = big_note(args.megabytes)
    with bench_settings() as base_settings, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "vault"
        folder.mkdir()
        port = free_port()
        settings = base_settings.model_copy(update={"vault_path": folder, "api_port": port})
        with serving(create_app(settings), port) as base:
            status, seconds, pings = asyncio.run(run(base, text))
    ordered = sorted(pings) or [0.0]
    table = "\n".join(
        [
            "| note | PUT status | PUT time | other requests | their median | p95 | max |",
            "|---:|---:|---:|---:|---:|---:|---:|",
            f"| {len(text.encode()) / 1e6:.2f} MB | {status} | {seconds:.1f} s | {len(pings)} | "
            f"{statistics.median(ordered):.0f} ms | "
            f"{ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]:.0f} ms | "
            f"{ordered[-1]:.0f} ms |",
        ]
    )
    print(table)
    if args.record:
        record(
            "A very large note over REST",
            f"python -m bench.bigput --megabytes {args.megabytes} --record",
            f"`PUT /notes/Big.md` of a generated {args.megabytes} MB note while `GET /stats` "
            "is sent every 100 ms",
            table,
        )


if __name__ == "__main__":
    main()
