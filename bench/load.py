"""Bursts and outages over HTTP: 200 concurrent `POST /retrieve`, and every route with Neo4j cut.

Usage (from the repository root, after scripts/bootstrap):
    .venv/bin/python -m bench.load [--notes 500] [--burst 200] [--rounds 3]
        [--ingest-notes 5000] [--clients 20] [--record]

The real API (uvicorn, in a thread of this process) serves a generated vault of ``--notes``
notes (bench/ingest.py's generator, extraction off, the hashing embedder). Its Bolt connection
goes through a loopback TCP proxy so Neo4j can be cut without stopping it.

1. Burst: ``--burst`` retrievals sent at once, ``--rounds`` times; every status is counted and
   the latency of each request (send to last byte) gives p50/p95/p99.
2. Querying during an ingest: ``--ingest-notes`` more notes are written into the vault and
   ``POST /sync`` ingests them while ``--clients`` clients send `POST /retrieve` one after
   another until the sync answers; every status and latency is counted.
3. Outage: the proxy drops every connection and refuses new ones, as a stopped Neo4j would;
   each route is called five times and timed.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from tests.integration.server import TcpProxy, free_port, serving

from bench.common import bench_settings, record
from bench.ingest import generate
from knotwork.api import create_app
from knotwork.core import open_core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.settings import Settings

QUESTIONS = ["Who works with Note 00042?", "status active role", "graph of notes and details"]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _timed(client: httpx.AsyncClient, i: int) -> tuple[int, float]:
    started = time.perf_counter()
    response = await client.post("/retrieve", json={"question": QUESTIONS[i % len(QUESTIONS)]})
    return response.status_code, (time.perf_counter() - started) * 1000


async def burst(base: str, count: int) -> list[tuple[int, float]]:
    limits = httpx.Limits(max_connections=count)
    async with httpx.AsyncClient(base_url=base, timeout=600, limits=limits) as client:
        return await asyncio.gather(*(_timed(client, i) for i in range(count)))


async def during_ingest(base: str, clients: int) -> tuple[list[tuple[int, float]], int, float]:
    """(statuses and latencies of the clients' retrievals, the sync's status, its seconds)."""
    limits = httpx.Limits(max_connections=clients + 1)
    async with httpx.AsyncClient(base_url=base, timeout=3600, limits=limits) as client:
        done = asyncio.Event()

        async def sync() -> tuple[int, float]:
            started = time.perf_counter()
            response = await client.post("/sync")
            done.set()
            return response.status_code, time.perf_counter() - started

        async def asker(i: int) -> list[tuple[int, float]]:
            seen: list[tuple[int, float]] = []
            while not done.is_set():
                seen.append(await _timed(client, i + len(seen)))
            return seen

        syncing = asyncio.create_task(sync())
        asked = await asyncio.gather(*(asker(i) for i in range(clients)))
        status, seconds = await syncing
    return [r for rows in asked for r in rows], status, seconds


def _table(results: list[tuple[int, float]]) -> list[str]:
    statuses = Counter(status for status, _ in results)
    ok = [ms for status, ms in results if status == 200] or [0.0]
    return [
        "| requests | 200 | 503 | ≥ 500 other | p50 | p95 | p99 | max |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {len(results)} | {statuses[200]} | {statuses[503]} | "
        f"{sum(n for s, n in statuses.items() if s >= 500 and s != 503)} | "
        f"{_pct(ok, 0.5):.0f} ms | {_pct(ok, 0.95):.0f} ms | {_pct(ok, 0.99):.0f} ms | "
        f"{max(ok):.0f} ms |",
    ]


def outage(base: str, proxy: TcpProxy) -> dict[str, list[float]]:
    proxy.cut()
    calls = {
        "GET /health": ("GET", "/health", None),
        "GET /stats": ("GET", "/stats", None),
        "POST /retrieve": ("POST", "/retrieve", {"question": QUESTIONS[0]}),
        "POST /query (fast)": ("POST", "/query", {"question": QUESTIONS[0], "mode": "fast"}),
    }
    times: dict[str, list[float]] = {}
    with httpx.Client(base_url=base, timeout=120) as client:
        for name, (method, path, body) in calls.items():
            for _ in range(5):
                started = time.perf_counter()
                response = client.request(method, path, json=body)
                assert response.status_code == 503, (name, response.status_code)
                times.setdefault(name, []).append(time.perf_counter() - started)
    proxy.restore()
    return times


async def _ingest(settings: Settings, folder: Path, notes: int) -> None:
    generate(folder, notes)
    async with open_core(settings) as core:
        await core.ensure_ready()
        await sync_vault(Ingestor(core, root=folder, extract_enabled=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=500)
    parser.add_argument("--burst", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ingest-notes", type=int, default=5000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    with bench_settings() as base_settings, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "vault"
        settings = base_settings.model_copy(update={"vault_path": folder})
        asyncio.run(_ingest(settings, folder, args.notes))
        target = urlsplit(settings.neo4j_uri)
        proxy = TcpProxy(target.hostname or "127.0.0.1", target.port or 7687).start()
        port = free_port()
        served = settings.model_copy(
            update={"neo4j_uri": f"bolt://127.0.0.1:{proxy.port}", "api_port": port}
        )
        results: list[tuple[int, float]] = []
        with serving(create_app(served), port) as base:
            for _ in range(args.rounds):
                results += asyncio.run(burst(base, args.burst))
            generate(folder / "more", args.ingest_notes, seed=11)
            during, sync_status, sync_s = asyncio.run(during_ingest(base, args.clients))
            down = outage(base, proxy)
        proxy.close()
    lines = [
        f"Burst: {args.rounds} × {args.burst} concurrent `POST /retrieve`",
        "",
        *_table(results),
        "",
        f"During `POST /sync` of {args.ingest_notes} more notes (status {sync_status}, "
        f"{sync_s:.0f} s, {args.ingest_notes / sync_s:.0f} notes/s): {args.clients} clients "
        "asking `POST /retrieve` one after another",
        "",
        *_table(during),
        "",
        "| route, Neo4j cut | 503s | median | max |",
        "|---|---:|---:|---:|",
    ]
    for name, times in down.items():
        lines.append(
            f"| {name} | {len(times)} | {statistics.median(times):.2f} s | {max(times):.2f} s |"
        )
    table = "\n".join(lines)
    print(table)
    if args.record:
        record(
            "Bursts and outages over HTTP",
            f"python -m bench.load --notes {args.notes} --burst {args.burst} "
            f"--rounds {args.rounds} --ingest-notes {args.ingest_notes} "
            f"--clients {args.clients} --record",
            f"{args.notes} notes, {args.rounds} bursts of {args.burst} concurrent "
            f"`POST /retrieve` (KNOTWORK_API_MAX_CONCURRENT={served.api_max_concurrent}, "
            f"KNOTWORK_API_MAX_WAITING={served.api_max_waiting}); {args.clients} clients "
            f"while `POST /sync` ingests {args.ingest_notes} more; then Neo4j cut at a TCP proxy",
            table,
        )


if __name__ == "__main__":
    main()
