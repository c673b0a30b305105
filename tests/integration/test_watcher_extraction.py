"""The watcher's model extraction runs beside its writes: a slow chat model never holds the next
change out of the graph, and the chunks it has not done yet stay pending, done after."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from knotwork.core import Core
from knotwork.graph.lease import Lease
from knotwork.graph.queries.writes import CHUNKS_PENDING
from knotwork.ingest.ingestor import Ingestor
from knotwork.watch.watcher import VaultWatcher
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc, stored_notes

ANSWER = json.dumps(
    {
        "entities": [{"name": "Ann", "type": "person"}, {"name": "Ben", "type": "person"}],
        "triples": [{"subject": "Ann", "predicate": "works with", "object": "Ben"}],
    }
)


class HeldModel:
    """A chat model that answers only once let go: every extraction hangs until then."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.asked = threading.Event()

    def __call__(self, body: dict[str, Any]) -> str:
        self.asked.set()
        self.go.wait(60)
        return ANSWER


@pytest.fixture
async def held(fake_ollama: FakeOllama) -> AsyncIterator[HeldModel]:
    model = HeldModel()
    fake_ollama.chat_script = model
    yield model
    model.go.set()  # no request thread of the fake left waiting


async def _until(check: Any, limit_s: float = 30.0) -> None:
    deadline = time.monotonic() + limit_s
    while not await check():
        assert time.monotonic() < deadline, f"not true after {limit_s} s"
        await asyncio.sleep(0.05)


async def _pending(core: Core) -> list[str]:
    rows = await core.store.read(CHUNKS_PENDING, vault="w", extract=True, limit=100)
    return sorted(r["note_path"] for r in rows)


async def _watching(core: Core, vault: Path) -> tuple[VaultWatcher, asyncio.Task[None]]:
    tuned = dataclasses.replace(
        core,
        settings=core.settings.model_copy(
            update={"watch_debounce_ms": 100, "watch_rescan_s": 0, "lease_ttl_s": 5}
        ),
    )
    ingestor = Ingestor(tuned, root=vault, vault="w", extract_enabled=True)
    running = VaultWatcher(ingestor, Lease(tuned.store, "w", 5))
    ready = asyncio.Event()
    task = asyncio.create_task(running.run(ready=ready))
    await asyncio.wait_for(ready.wait(), 60)
    return running, task


async def test_an_edit_and_a_delete_land_while_the_model_extracts_another_note(
    core: Core, vault: Path, held: HeldModel
) -> None:
    held.go.set()  # the start-up rescan's chunks are extracted at once
    (vault / "Gone.md").write_text("# Gone\n\nA note about to go.\n")
    (vault / "Kept.md").write_text("# Kept\n\nThe first text.\n")
    running, task = await _watching(core, vault)
    try:
        await _until(lambda: _nothing_pending(core))
        held.go.clear()
        held.asked.clear()
        (vault / "Slow.md").write_text("# Slow\n\nAnn works with Ben.\n\n## More\n\nAnd more.\n")
        await asyncio.to_thread(held.asked.wait, 30)  # the model now holds Slow.md's chunk
        (vault / "Gone.md").unlink()
        (vault / "Kept.md").write_text("# Kept\n\nThe second text.\n")
        await _until(lambda: _landed(core), 10)  # while the model still holds its answer
        assert not held.go.is_set() and "Slow.md" in await _pending(core)
        assert not running.idle, "the model's work is part of what the watcher is doing"

        held.go.set()
        await _until(lambda: _nothing_pending(core))
        facts = await ad_hoc(
            core,
            "MATCH (:Entity {vault: 'w', key: 'ann'})-[r:WORKS_WITH]->(:Entity {key: 'ben'}) "
            "RETURN r.source AS source, r.extractor AS extractor",
            {},
            write=False,
        )
        assert {"source": "Slow.md", "extractor": "llm"} in facts
    finally:
        running.stop()
        await asyncio.wait_for(task, 30)


async def test_a_watcher_stopping_while_the_model_hangs_stops_and_leaves_the_chunks_pending(
    core: Core, vault: Path, held: HeldModel
) -> None:
    held.go.set()
    running, task = await _watching(core, vault)
    held.go.clear()
    (vault / "Slow.md").write_text("# Slow\n\nAnn works with Ben.\n")
    await asyncio.to_thread(held.asked.wait, 30)
    assert list(await stored_notes(core, "w")) == ["Slow.md"]
    started = time.monotonic()
    running.stop()
    await asyncio.wait_for(task, 30)
    assert time.monotonic() - started < 10, "a stop does not wait for the model"
    assert await _pending(core) == ["Slow.md"]  # done by the next watcher or `knotwork retry`


async def _nothing_pending(core: Core) -> bool:
    return not await _pending(core)


async def _landed(core: Core) -> bool:
    notes = await stored_notes(core, "w")
    rows = await ad_hoc(
        core,
        "MATCH (:Note {vault: 'w', path: 'Kept.md'})-[:HAS_CHUNK]->(c:Chunk) RETURN c.text AS t",
        {},
        write=False,
    )
    return "Gone.md" not in notes and any("second text" in r["t"] for r in rows)
