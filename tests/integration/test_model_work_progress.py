"""The watcher's model work moves its progress with each chunk the chat model extracts, through
the real passes (``pending_work``, ``retry_pending``) against Neo4j and the fake Ollama: a CPU
model takes a minute a chunk, and a bar that moved only once a pass of 64 was over stood still
for an hour."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from knotwork.core import Core
from knotwork.ingest.changes import Progress
from tests.fakes.ollama import FakeOllama, chat_answer
from tests.integration.test_watcher import started

NOTES = 3


async def test_the_watchers_model_work_moves_its_bar_with_each_chunk_extracted(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    go = threading.Event()

    def held(body: dict[str, Any]) -> str:  # the model answers once the bar is in place
        go.wait(60)
        return chat_answer(None, body)

    fake_ollama.chat_script = held
    for i in range(NOTES):
        (vault / f"N{i}.md").write_text(f"# Note {i}\n\nOne short section, number {i}.\n")
    moves: list[tuple[int, int, str]] = []

    @contextmanager
    def bar() -> Iterator[Progress]:
        yield lambda done, total, what: moves.append((done, total, what))

    running, task = await started(core, vault, extract=True, watch_rescan_s=0)
    try:
        running.model_work.shown = bar  # as `knotwork watch` sets it on a terminal
        go.set()
        for _ in range(600):
            if len(moves) >= NOTES and not running.model_work.running:
                break
            await asyncio.sleep(0.05)
    finally:
        go.set()
        running.stop()
        await asyncio.wait_for(task, 30)
    chunk_by_chunk = [(done, total) for done, total, _ in moves[:NOTES]]
    assert chunk_by_chunk == [(1, NOTES), (2, NOTES), (3, NOTES)], moves
    assert {what for _, _, what in moves} == {"pending model work: extracting facts"}
