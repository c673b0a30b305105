"""A note moved onto another note the graph holds, and the changes a rescan lands: the watcher
writes and says them as `ingest` would — the note there keeps its history, the old path is
deleted, and a rescan's writes, moves and deletes are said as a pass's are."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pytest

from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.watch.change import write_change
from knotwork.watch.events import Pending
from knotwork.watch.moves import apply_moves
from knotwork.watch.watcher import VaultWatcher
from tests.integration.conftest import ad_hoc, put
from tests.integration.test_watcher import (
    assert_verified,
    graph_paths,
    settle,
    synced_not_running,
    watched,
)


async def _kinds(core: Core, path: str) -> list[str]:
    """The kinds of the revisions at ``path``, oldest first."""
    rows = await ad_hoc(
        core,
        "MATCH (r:Revision {vault: 'w', path: $path}) RETURN r.kind AS kind ORDER BY r.at",
        {"path": path},
    )
    return [r["kind"] for r in rows]


def _said(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "knotwork.watch.said"]


def _two_notes(vault: Path) -> None:
    put(vault, "Note 40.md", "# Note 40\n\nForty, about [[Note 41]].\n")
    put(vault, "Note 44.md", "# Note 44\n\nForty-four, about [[Note 41]].\n")


async def _history_then_move(core: Core, vault: Path) -> list[str]:
    """Note 40 edited once more (two revisions), then Note 44 moved over it on disk; the
    revisions Note 40 had before the move."""
    ingestor = Ingestor(core, root=vault, vault="w", extract_enabled=False)
    put(vault, "Note 40.md", "# Note 40\n\nForty, about [[Note 41]], edited.\n")
    await sync_vault(ingestor)
    before = await _kinds(core, "Note 40.md")
    assert len(before) == 2, before
    os.replace(vault / "Note 44.md", vault / "Note 40.md")
    return before


async def _assert_as_ingest(core: Core, before: list[str]) -> None:
    """Note 40 written with Note 44's text, its history going on; Note 44 deleted."""
    assert await graph_paths(core) == ["Note 40.md"]
    assert await _kinds(core, "Note 40.md") == [*before, "upsert"]
    assert (await _kinds(core, "Note 44.md"))[-1] == "delete"
    orphans = await ad_hoc(
        core,
        "MATCH (r:Revision {vault: 'w'}) WHERE NOT r.path IN ['Note 40.md', 'Note 44.md'] "
        "RETURN count(r) AS n",
        {},
    )
    assert orphans[0]["n"] == 0


async def test_a_note_moved_onto_another_continues_its_history_as_ingest_writes_it(
    core: Core, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The watcher's events (batched moves): `mv "Note 44.md" "Note 40.md"`."""
    _two_notes(vault)
    caplog.set_level(logging.INFO, logger="knotwork")
    ingestor = Ingestor(core, root=vault, vault="w", extract_enabled=False)
    await sync_vault(ingestor)
    async with watched(core, vault, watch_debounce_ms=100, watch_rescan_s=0) as running:
        put(vault, "Note 40.md", "# Note 40\n\nForty, about [[Note 41]], edited.\n")
        await settle(running, quiet=1.0)
        before = await _kinds(core, "Note 40.md")
        assert len(before) == 2, before
        seen = running.status.events
        os.replace(vault / "Note 44.md", vault / "Note 40.md")
        await settle(running, quiet=1.0, since=seen)
        await assert_verified(running)
    await _assert_as_ingest(core, before)
    assert "written Note 40.md; deleted Note 44.md" in _said(caplog), _said(caplog)


async def test_a_note_moved_onto_another_one_by_one_continues_its_history(
    core: Core, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The one-by-one path (watch/change.py), as a batch refused falls back to it."""
    _two_notes(vault)
    caplog.set_level(logging.INFO, logger="knotwork")
    running = await synced_not_running(core, vault)
    before = await _history_then_move(core, vault)
    now = time.monotonic()
    assert await write_change(running, "Note 40.md", Pending(now, now, "Note 44.md"), set())
    running.said.say()
    await assert_verified(running)
    await _assert_as_ingest(core, before)
    assert _said(caplog) == ["written Note 40.md; deleted Note 44.md"]


async def test_a_note_moved_onto_another_in_a_batch_continues_its_history(
    core: Core, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The batched path (watch/moves.py), beside a plain move in the same batch."""
    _two_notes(vault)
    put(vault, "c.md", "# C\n\nA note moved plainly.\n")
    caplog.set_level(logging.INFO, logger="knotwork")
    running = await synced_not_running(core, vault)
    before = await _history_then_move(core, vault)
    os.replace(vault / "c.md", vault / "d.md")
    now = time.monotonic()
    moves = [
        ("Note 40.md", Pending(now, now, "Note 44.md")),
        ("d.md", Pending(now, now, "c.md")),
    ]
    assert await apply_moves(running, moves, set())
    running.said.say()
    await assert_verified(running)
    assert await _kinds(core, "d.md") == ["rename"]
    assert sorted(await graph_paths(core)) == ["Note 40.md", "d.md"]
    assert await _kinds(core, "Note 40.md") == [*before, "upsert"]
    assert (await _kinds(core, "Note 44.md"))[-1] == "delete"
    assert _said(caplog) == ["written Note 40.md; deleted Note 44.md; moved c.md → d.md"]


async def test_a_rescan_says_what_it_wrote_moved_and_deleted(
    core: Core, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A rescan (a folder moved out, a checkout) lands its changes said as a pass's are, the
    names capped the same way; the start-up sync a summary shows says nothing of its own."""
    for n in range(5):
        put(vault, f"Batch/n{n}.md", f"# N{n}\n\nNote {n} of a batch.\n")
    put(vault, "a.md", "# A\n\nA note.\n")
    put(vault, "b.md", "# B\n\nA note moved while no event says so.\n")
    running: VaultWatcher = await synced_not_running(core, vault)
    await running.rescan()  # its start-up sync: nothing to say (as the next test has it)
    caplog.set_level(logging.INFO, logger="knotwork")
    for n in range(5):
        (vault / f"Batch/n{n}.md").unlink()
    put(vault, "a.md", "# A\n\nA note, edited.\n")
    os.replace(vault / "b.md", vault / "c.md")
    await running.rescan()
    assert _said(caplog) == [
        "written a.md; moved b.md → c.md; "
        "deleted 5: Batch/n0.md, Batch/n1.md, Batch/n2.md and 2 more"
    ]


async def test_the_start_up_sync_says_nothing_also_without_a_progress_bar(
    core: Core, vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A watcher the API started (`knotwork serve` with a watcher: no progress bar, so no
    summary) reads the vault in at start: its writes are the vault's state, not changes said
    line by line (a rescan after it says its changes: the test above)."""
    for n in range(5):
        put(vault, f"n{n}.md", f"# N{n}\n\nNote {n}, read in at start.\n")
    await sync_vault(Ingestor(core, root=vault, vault="w", extract_enabled=False))
    (vault / "n0.md").unlink()
    put(vault, "n1.md", "# N1\n\nNote 1, edited while no watcher ran.\n")
    put(vault, "new.md", "# New\n\nA note made while no watcher ran.\n")
    caplog.set_level(logging.INFO, logger="knotwork")
    async with watched(core, vault, watch_debounce_ms=100, watch_rescan_s=0) as running:
        assert running.last_report is not None
        assert (running.last_report.written, running.last_report.deleted) == (2, 1)
        assert _said(caplog) == []
