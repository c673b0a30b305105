"""The watcher under a burst of plain changes (a folder of notes copied in, many deleted at
once): they are written in batches, a few transactions for hundreds of notes, and one note
that fails costs only itself."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import pytest

from knotwork.check.verify import verify_vault
from knotwork.core import Core
from knotwork.errors import GraphQueryError
from knotwork.ingest import write
from tests.integration.conftest import put
from tests.integration.test_watcher import assert_verified, graph_paths, settle, watched

NOTES = 300
DEBOUNCE_MS = 1000  # long enough that one pass takes the whole burst on a busy machine


def _counted(monkeypatch: pytest.MonkeyPatch, refuse: str | None = None) -> list[int]:
    """The sizes of the write transactions the watcher makes; with ``refuse``, Neo4j refuses
    every transaction writing that note (as it would a constraint it breaks)."""
    sizes: list[int] = []
    real = write.write_batch

    async def counting(store: Any, batch: Any) -> Any:
        paths = [w.path for w in batch.writes] + [d.path for d in batch.deletes]
        sizes.append(len(paths))
        if refuse in paths:
            raise GraphQueryError(f"refused: {refuse}")
        return await real(store, batch)

    monkeypatch.setattr(write, "write_batch", counting)
    return sizes


def _copy_in(vault: Path, folder: str, count: int) -> None:
    for i in range(count):
        put(vault, f"{folder}/n{i:03d}.md", f"# N{i}\n\nLinks to [[n{(i + 1) % count:03d}]].\n")


async def test_a_burst_of_copied_notes_is_written_in_a_few_transactions(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with watched(core, vault, watch_debounce_ms=DEBOUNCE_MS, watch_rescan_s=0) as running:
        before = await graph_paths(core)
        sizes = _counted(monkeypatch)
        _copy_in(vault, "copied", NOTES)
        await settle(running, quiet=1.0, limit_s=120)
        await assert_verified(running)
        assert len(await graph_paths(core)) == len(before) + NOTES
        assert running.status.processed >= NOTES
        assert 0 < len(sizes) <= 10, sizes  # one by one it was one per note
        sizes.clear()
        for i in range(NOTES):  # and deleted at once
            (vault / f"copied/n{i:03d}.md").unlink()
        await settle(running, quiet=1.0, limit_s=120)
        await assert_verified(running)
        assert await graph_paths(core) == before
        assert 0 < len(sizes) <= 10, sizes


async def test_a_binary_note_in_a_burst_costs_only_itself(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="knotwork.watch")
    async with watched(core, vault, watch_debounce_ms=DEBOUNCE_MS, watch_rescan_s=0) as running:
        before = await graph_paths(core)
        sizes = _counted(monkeypatch)
        _copy_in(vault, "copied", 50)
        (vault / "copied/image.md").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
        await settle(running, quiet=1.0, limit_s=120)
        assert len(await graph_paths(core)) == len(before) + 50
        said = [r.getMessage() for r in caplog.records if "binary" in r.getMessage()]
        assert len(said) == 1 and said[0].startswith("copied/image.md: "), said
        assert running.status.errors == 1
        assert len(sizes) <= 3, sizes
        differences = await verify_vault(running.ingestor)
        assert {p for d in differences for p in (*d.missing, *d.stale)} <= {"copied/image.md"}, (
            differences
        )


async def test_a_batch_neo4j_refuses_is_written_one_by_one(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="knotwork.watch")
    monkeypatch.setattr("knotwork.watch.apply.RETRY_GRAPH_S", 0.2)
    async with watched(core, vault, watch_debounce_ms=DEBOUNCE_MS, watch_rescan_s=0) as running:
        before = await graph_paths(core)
        sizes = _counted(monkeypatch, refuse="copied/n007.md")
        _copy_in(vault, "copied", 50)
        await settle(running, quiet=1.0, limit_s=120)
        paths = await graph_paths(core)
        assert len(paths) == len(before) + 49 and "copied/n007.md" not in paths
        # The watcher's own tries (a rescan, once they are given up, says it its own way).
        said = [r.getMessage() for r in caplog.records if "(try " in r.getMessage()]
        assert said and all(m.startswith("copied/n007.md: refused") for m in said), said
        assert len(said) == len(set(said)), said  # each try said once
        assert sizes.count(1) >= 49  # the others, one by one
        differences = await verify_vault(running.ingestor)
        assert {p for d in differences for p in (*d.missing, *d.stale)} <= {"copied/n007.md"}, (
            differences
        )


async def test_a_folder_restored_from_the_trash_is_written_as_new_notes_in_a_batch(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # .trash is ignored: its notes were never in the graph, so none is a move's source.
    caplog.set_level(logging.INFO, logger="knotwork.watch")
    _copy_in(vault, ".trash/Batch", 40)
    async with watched(core, vault, watch_debounce_ms=DEBOUNCE_MS, watch_rescan_s=0) as running:
        before = await graph_paths(core)
        assert not [p for p in before if "Batch" in p]
        sizes = _counted(monkeypatch)
        caplog.clear()
        os.rename(vault / ".trash/Batch", vault / "Batch")
        await settle(running, quiet=1.0, limit_s=120)
        await assert_verified(running)
        assert len(await graph_paths(core)) == len(before) + 40
        assert 0 < len(sizes) <= 10, sizes  # in batches, as copied in; not a move each
        said = [r.getMessage() for r in caplog.records if "Batch/" in r.getMessage()]
        assert said and all(".trash" not in m and "moved" not in m for m in said), said
        assert any(m.startswith("written 40: Batch/n000.md") for m in said), said
