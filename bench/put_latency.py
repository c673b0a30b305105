"""How long a REST write (`PUT /notes/{path}`) takes to answer with a slow chat model, and how
long until the model's facts of it are in the graph.

    python -m bench.put_latency --delay 1.0 --sections 6 --puts 3

The loopback fake model (tests/fakes/ollama.py) answers each extraction after ``--delay``
seconds, as a CPU model does in a minute; each PUT writes a new note of ``--sections``
sections (one chunk each, plus its opening) into a vault of its own, through the API app in
this process (its lifespan, its background work). Run it on two code trees (each on its own
``PYTHONPATH``) to compare. Neo4j as in bench/common.py.
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

import httpx
from tests.fakes.ollama import FakeOllama, chat_answer

from bench.common import bench_settings, cpu_model
from knotwork.api import create_app
from knotwork.graph.queries.writes import CHUNKS_PENDING
from knotwork.settings import Settings


def _note(sections: int, take: int) -> str:
    return "# Long\n\n" + "".join(
        f"## Part {k}\n\nAnn works with Ben, part {k}, take {take}.\n\n" for k in range(sections)
    )


async def _pending(app: Any, vault: str) -> int:
    core = app.state.core
    now = int(time.time() * 1000)
    rows = await core.store.read(
        CHUNKS_PENDING, vault=vault, extract=True, limit=10_000, asked_before=now
    )
    return len(rows)


async def _extracted(app: Any, vault: str, limit_s: float = 3600.0) -> None:
    """Until no chunk of the vault is pending extraction."""
    for _ in range(int(limit_s / 0.05)):
        if not await _pending(app, vault):
            return
        await asyncio.sleep(0.05)
    raise TimeoutError(f"chunks still pending after {limit_s:.0f} s")


async def run(base: Settings, delay: float, sections: int, puts: int) -> list[tuple[float, float]]:
    """Per PUT: seconds until it answered, and until no chunk of the vault was pending."""
    fake = FakeOllama().start()

    def slow(body: dict[str, Any]) -> str:
        time.sleep(delay)
        return chat_answer(None, body)  # the schema's smallest instance: no facts, no error

    fake.chat_script = slow
    folder, state = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    vault = f"putlatency{os.getpid()}"
    settings = base.model_copy(
        update={
            "ollama_base_url": fake.base_url,
            "vault_path": folder,
            "vault_name": vault,
            "state_dir": state,
            "extract": True,
            "api_key": None,
        }
    )
    out = []
    try:
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://127.0.0.1:8000", timeout=3600
            ) as client:
                for take in range(puts):
                    began = time.perf_counter()
                    response = await client.put(
                        f"/notes/long{take}.md",
                        content=_note(sections, take),
                        headers={"content-type": "text/markdown"},
                    )
                    answered = time.perf_counter() - began
                    response.raise_for_status()
                    await _extracted(app, vault)
                    out.append((answered, time.perf_counter() - began))
            await app.state.core.store.drop_vault(vault)
    finally:
        fake.stop()
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(state, ignore_errors=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--delay", type=float, default=1.0, help="seconds per extraction")
    parser.add_argument("--sections", type=int, default=6)
    parser.add_argument("--puts", type=int, default=3)
    args = parser.parse_args()
    with bench_settings() as settings:
        rows = asyncio.run(run(settings, args.delay, args.sections, args.puts))
    print(f"machine: {cpu_model()}, load {os.getloadavg()[0]:.2f}")
    print("| PUT | answered, s | the model's facts in, s |")
    print("|---:|---:|---:|")
    for i, (answered, done) in enumerate(rows, 1):
        print(f"| {i} | {answered:.2f} | {done:.2f} |")


if __name__ == "__main__":
    main()
