"""The watcher under the bulk moves users make in a vault (a folder moved and moved back, a
note renamed twice in a row, two notes swapping names): once it is idle the graph equals the
folder, and a move stays a move — nothing embedded again, the history followed."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from watchdog.events import FileMovedEvent, FileSystemEvent

from knotwork.core import Core
from knotwork.ingest.changes import NoteOutcome
from knotwork.ingest.ingestor import Move
from knotwork.vault.files import NoteText
from knotwork.watch import bulk
from knotwork.watch.watcher import VaultWatcher
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc, put
from tests.integration.test_watcher import assert_verified, graph_paths, settle, started, watched


async def _revisions(core: Core) -> list[tuple[str, str, str | None]]:
    """The vault's revisions, oldest first, but for the record closing a rename's old path
    (written with the rename: test_rename_revisions.py)."""
    rows = await ad_hoc(
        core,
        "MATCH (r:Revision {vault: 'w'}) WHERE r.kind <> 'renamed' "
        "RETURN r.path AS path, r.kind AS kind, "
        "r.renamed_from AS source ORDER BY r.at",
        {},
    )
    return [(r["path"], r["kind"], r["source"]) for r in rows]


async def test_a_note_renamed_twice_within_the_debounce_is_one_rename(
    core: Core, vault: Path
) -> None:
    put(vault, "a.md", "# A\n\nA note that is renamed twice.\n")
    async with watched(core, vault, watch_debounce_ms=500, watch_rescan_s=0) as running:
        os.rename(vault / "a.md", vault / "b.md")
        os.rename(vault / "b.md", vault / "c.md")
        await settle(running, quiet=1.0)
        await assert_verified(running)
        assert await graph_paths(core) == ["c.md"]
        assert (await _revisions(core))[1:] == [("c.md", "rename", "a.md")]


async def test_a_folder_moved_and_moved_back_within_the_debounce_changes_nothing(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    for i in range(20):
        put(vault, f"a/n{i:02d}.md", f"# N{i}\n\nLinks to [[n{(i + 1) % 20:02d}]].\n")
    async with watched(core, vault, watch_debounce_ms=500, watch_rescan_s=0) as running:
        revisions = await _revisions(core)
        fake_ollama.calls.clear()
        os.rename(vault / "a", vault / "b")
        await asyncio.sleep(0.1)
        os.rename(vault / "b", vault / "a")
        await settle(running, quiet=1.0)
        await assert_verified(running)
        assert fake_ollama.embedded_texts() == []
        assert await _revisions(core) == revisions


async def test_a_folder_moved_twice_within_the_debounce_is_one_move(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    for i in range(20):
        put(vault, f"a/n{i:02d}.md", f"# N{i}\n\nLinks to [[n{(i + 1) % 20:02d}]].\n")
    async with watched(core, vault, watch_debounce_ms=500, watch_rescan_s=0) as running:
        fake_ollama.calls.clear()
        os.rename(vault / "a", vault / "b")
        await asyncio.sleep(0.1)
        os.rename(vault / "b", vault / "c")
        await settle(running, quiet=1.0)
        await assert_verified(running)
        assert fake_ollama.embedded_texts() == []
        assert {s for _, kind, s in (await _revisions(core))[20:] if kind == "rename"} == {
            f"a/n{i:02d}.md" for i in range(20)
        }


async def test_a_folder_moved_twice_at_once_is_one_move(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """Both moves done before the first one's event is read: the folder it names is gone."""
    for i in range(20):
        put(vault, f"a/n{i:02d}.md", f"# N{i}\n\nLinks to [[n{(i + 1) % 20:02d}]].\n")
    async with watched(core, vault, watch_debounce_ms=500, watch_rescan_s=0) as running:
        fake_ollama.calls.clear()
        os.rename(vault / "a", vault / "b")
        os.rename(vault / "b", vault / "c")
        await settle(running, quiet=1.0)
        await assert_verified(running)
        assert fake_ollama.embedded_texts() == []


class HeldEvents:
    """The watcher's events kept back while ``holding``, handed over when the test says: a
    busy machine reading watchdog's events late, made deterministic."""

    def __init__(self, watcher: VaultWatcher) -> None:
        gate = watcher._handler
        assert gate is not None
        self._sink, gate.sink = gate.sink, self._take
        self.holding = False
        self.held: list[FileSystemEvent] = []

    def _take(self, event: FileSystemEvent) -> None:
        if self.holding:
            self.held.append(event)
        else:
            self._sink(event)

    async def until(self, kind: type[FileSystemEvent], count: int) -> None:
        deadline = time.monotonic() + 10
        while sum(isinstance(e, kind) for e in self.held) < count:
            assert time.monotonic() < deadline, f"{count} {kind.__name__} never came"
            await asyncio.sleep(0.02)

    def release(self, which: Callable[[FileSystemEvent], bool] = lambda _: True) -> None:
        now = [e for e in self.held if which(e)]
        self.held = [e for e in self.held if not which(e)]
        for event in now:
            self._sink(event)


def hold_first(watcher: VaultWatcher, name: str) -> tuple[asyncio.Event, asyncio.Event]:
    """The first call of the ingestor's ``name`` (a write: ``renames`` for a batch of moves,
    or one) held until ``go`` is set:
    ``reached`` says the pass is in it."""
    reached, go = asyncio.Event(), asyncio.Event()
    real = getattr(watcher.ingestor, name)

    async def held(*args: Any) -> Any:
        if not reached.is_set():
            reached.set()
            await go.wait()
        return await real(*args)

    setattr(watcher.ingestor, name, held)
    return reached, go


async def pass_over(watcher: VaultWatcher) -> None:
    deadline = time.monotonic() + 30
    while watcher._applying:
        assert time.monotonic() < deadline, "the pass never ended"
        await asyncio.sleep(0.02)


async def watching_events_only(
    core: Core, vault: Path, notes: int
) -> tuple[VaultWatcher, asyncio.Task[None]]:
    """A watcher of ``notes`` notes under a/, without the rescan a folder's move asks for:
    that reconciles by content and would hide what the events alone make of the moves."""
    for i in range(notes):
        put(vault, f"a/n{i:02d}.md", f"# N{i}\n\nLinks to [[n{(i + 1) % notes:02d}]].\n")
    running, task = await started(core, vault, watch_debounce_ms=200, watch_rescan_s=0)
    running._rescan_when_quiet = lambda: None  # type: ignore[method-assign]
    return running, task


async def assert_moved(core: Core, running: VaultWatcher, fake_ollama: FakeOllama) -> None:
    """Settled, the graph is the folder's, nothing was embedded again, and every revision since
    the notes were made is a rename (none deleted and made anew)."""
    await settle(running, quiet=1.0)
    await assert_verified(running)
    assert fake_ollama.embedded_texts() == []
    kinds = {kind for _, kind, _ in (await _revisions(core))[10:]}
    assert kinds <= {"rename"}, kinds


@pytest.mark.parametrize("folder_event_first", [True, False], ids=["folder-first", "all-after"])
async def test_a_folder_moved_on_while_its_first_move_is_written_stays_a_move(
    core: Core, vault: Path, fake_ollama: FakeOllama, folder_event_first: bool
) -> None:
    """The folder moves on (b→c) while its first move's (a→b) notes are being written, on a
    busy machine. ``folder-first``: the folder's event is read at once, the repeat watchdog
    sends for each note only after the pass took that note; the repeat is known as the move
    already chained (a→c). ``all-after``: every event of the second move is read once the
    pass is over; the notes the pass found gone wait for the event that says where they
    went. Either way no old path is deleted on its own and no note is made anew (embedded
    all again)."""
    running, task = await watching_events_only(core, vault, 10)
    events = HeldEvents(running)
    reached, go = hold_first(running, "renames")
    try:
        fake_ollama.calls.clear()
        os.rename(vault / "a", vault / "b")
        await asyncio.wait_for(reached.wait(), 30)  # the first move's pass is under way
        events.holding = True
        os.rename(vault / "b", vault / "c")
        await events.until(FileMovedEvent, 10)
        if folder_event_first:
            events.release(lambda e: e.is_directory)
        go.set()
        await pass_over(running)
        events.holding = False
        events.release()
        await assert_moved(core, running, fake_ollama)
    finally:
        running.stop()
        await asyncio.wait_for(task, 30)


@pytest.mark.parametrize("repeat", ["while-written", "after-written", "after-moved-on"])
async def test_a_move_said_again_after_it_was_written_stays_a_move(
    core: Core, vault: Path, fake_ollama: FakeOllama, repeat: str
) -> None:
    """watchdog says a folder's move (a→b) for the folder, then again for each note in it; on
    a busy machine the notes' events may be read once the pass took their move: while it is
    written, after, or once the folder moved on (b→c) and that was read. The repeat names a
    source the graph no longer holds (a/n00 is b/n00 now), and a move chained from it would
    make c/n00 a new note, embedded all again: the note is found by its content instead."""
    running, task = await watching_events_only(core, vault, 10)
    events = HeldEvents(running)
    reached, go = hold_first(running, "renames")

    def of_first(event: FileSystemEvent) -> bool:
        return isinstance(event, FileMovedEvent) and "/a/" in str(event.src_path)

    try:
        fake_ollama.calls.clear()
        events.holding = True
        os.rename(vault / "a", vault / "b")
        await events.until(FileMovedEvent, 10)
        events.release(lambda e: e.is_directory)  # the folder's event alone
        await asyncio.wait_for(reached.wait(), 30)  # the first move's pass is under way
        if repeat == "while-written":
            events.release(of_first)
        go.set()
        await pass_over(running)
        if repeat == "after-written":
            events.release(of_first)
        os.rename(vault / "b", vault / "c")
        await events.until(FileMovedEvent, 20 if repeat == "after-moved-on" else 10)
        events.release(lambda e: e.is_directory)  # the second folder's event, then the repeat
        events.release(of_first)
        events.holding = False
        events.release()
        await assert_moved(core, running, fake_ollama)
    finally:
        go.set()
        running.stop()
        await asyncio.wait_for(task, 30)


async def test_a_move_whose_next_move_is_read_too_late_is_found_by_a_rescan(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """x.md→p/x.md read, p/x.md→q/x.md read only after p/x.md was waited for (GONE_WAIT_S)
    and given up: x.md, the old path, is not deleted on its own (q/x.md would be a new note,
    embedded all again) but left to the rescan, which finds the note at q/x.md by its
    content."""
    put(vault, "x.md", "# X\n\nThe note that moves twice.\n")
    (vault / "p").mkdir()
    (vault / "q").mkdir()
    running, task = await started(core, vault, watch_debounce_ms=200, watch_rescan_s=0)
    events = HeldEvents(running)
    try:
        fake_ollama.calls.clear()
        events.holding = True
        os.rename(vault / "x.md", vault / "p/x.md")
        os.rename(vault / "p/x.md", vault / "q/x.md")
        await events.until(FileMovedEvent, 2)
        events.release(lambda e: str(e.dest_path).endswith("p/x.md"))
        deadline = time.monotonic() + 30
        while running.status.processed == 0:  # p/x.md waited for its event, then given up
            assert time.monotonic() < deadline, "the move was never given up"
            await asyncio.sleep(0.02)
        events.holding = False
        events.release()
        await settle(running, quiet=1.0)
        await assert_verified(running)
        assert await graph_paths(core) == ["q/x.md"]
        assert fake_ollama.embedded_texts() == []
        assert (await _revisions(core))[-1] == ("q/x.md", "rename", "x.md")
    finally:
        running.stop()
        await asyncio.wait_for(task, 30)


async def test_a_note_moved_onto_one_a_batch_is_reading_lands_as_ingest_writes_it(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """a/x.md moved over b/x.md while a batch (b/x.md and z.md edited) reads b/x.md: the move
    applies after the batch, as `ingest` writes a move onto a note the graph holds — b/x.md
    takes a/x.md's text, its history going on, and a/x.md is deleted."""
    put(vault, "a/x.md", "# X\n\nThe x note from a, moved over b's.\n")
    put(vault, "b/x.md", "# X\n\nThe x note of b.\n")
    put(vault, "z.md", "# Z\n\nThe z note.\n")
    running, task = await started(core, vault, watch_debounce_ms=200, watch_rescan_s=0)
    reached, go = threading.Event(), threading.Event()
    read = bulk.read_note

    def held(root: Path, rel: str, limit: int) -> NoteText:
        if rel == "b/x.md" and not reached.is_set():
            reached.set()
            go.wait(30)
        return read(root, rel, limit)

    bulk.read_note = held  # type: ignore[assignment]
    try:
        put(vault, "b/x.md", "# X\n\nThe x note of b, edited.\n")
        put(vault, "z.md", "# Z\n\nThe z note, edited.\n")
        assert await asyncio.to_thread(reached.wait, 30), "the batch never read b/x.md"
        fake_ollama.calls.clear()
        since = running.status.events
        os.rename(vault / "a/x.md", vault / "b/x.md")
        deadline = time.monotonic() + 10
        while running.pending.get("b/x.md") is None or running.status.events == since:
            assert time.monotonic() < deadline, "the move was never read"
            await asyncio.sleep(0.02)
        go.set()
        await settle(running, quiet=1.0)
        await assert_verified(running)
        revisions = await _revisions(core)  # the start-up sync's, then the move's
        assert [k for p, k, _ in revisions if p == "b/x.md"] == ["upsert", "upsert"]
        assert set(revisions[-2:]) == {("b/x.md", "upsert", None), ("a/x.md", "delete", None)}
    finally:
        bulk.read_note = read  # type: ignore[assignment]
        go.set()
        running.stop()
        await asyncio.wait_for(task, 30)


async def test_a_note_moved_before_a_batch_reads_it_waits_for_its_event(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """a/x.md (touched, with z.md edited: a batch) moved to b/x.md just before the batch
    reads it, the move's event read only after the batch is written: a/x.md, gone with no
    event saying so, waits for that event and is then moved, not deleted with b/x.md made
    anew (embedded again)."""
    put(vault, "a/x.md", "# X\n\nThe x note from a.\n")
    put(vault, "z.md", "# Z\n\nThe z note.\n")
    (vault / "b").mkdir()
    running, task = await started(core, vault, watch_debounce_ms=200, watch_rescan_s=0)
    events = HeldEvents(running)
    try:
        since = running.status.events
        put(vault, "z.md", "# Z\n\nThe z note, edited.\n")
        put(vault, "a/x.md", "# X\n\nThe x note from a.\n")  # touched: its text unchanged
        deadline = time.monotonic() + 10
        while not {"a/x.md", "z.md"} <= set(running.pending) or running.status.events == since:
            assert time.monotonic() < deadline, "the edits were never read"
            await asyncio.sleep(0.02)
        events.holding = True
        os.rename(vault / "a/x.md", vault / "b/x.md")
        await events.until(FileMovedEvent, 1)
        processed = running.status.processed
        while running.status.processed == processed:  # the batch (z.md) is written
            assert time.monotonic() < deadline + 20, "the batch was never written"
            await asyncio.sleep(0.02)
        await pass_over(running)
        fake_ollama.calls.clear()
        events.holding = False
        events.release()
        await settle(running, quiet=1.0)
        await assert_verified(running)
        assert not [t for t in fake_ollama.embedded_texts() if "from a" in t]
        assert (await _revisions(core))[-1] == ("b/x.md", "rename", "a/x.md")
    finally:
        running.stop()
        await asyncio.wait_for(task, 30)


async def test_a_folder_moved_on_under_slow_writes_stays_a_move(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """The same as the tests above, end to end: the second move comes while the first move's
    notes are being written (slowly), its events read as they come, rescans on."""
    for i in range(10):
        put(vault, f"a/n{i:02d}.md", f"# N{i}\n\nLinks to [[n{(i + 1) % 10:02d}]].\n")
    running, task = await started(core, vault, watch_debounce_ms=200, watch_rescan_s=0)
    renames = running.ingestor.renames

    async def slow(moves: list[Move]) -> list[NoteOutcome]:
        await asyncio.sleep(0.2)
        return await renames(moves)

    running.ingestor.renames = slow  # type: ignore[method-assign]
    try:
        fake_ollama.calls.clear()
        rescans = running.status.rescans
        os.rename(vault / "a", vault / "b")
        deadline = time.monotonic() + 30
        # The first move's pass under way, or the rescan the folder's event asks for (on a
        # busy machine it may come first, and the pass then has nothing left to do).
        while running.status.processed == 0 and running.status.rescans == rescans:
            assert time.monotonic() < deadline, "the first move was never applied"
            await asyncio.sleep(0.02)
        os.rename(vault / "b", vault / "c")
        await settle(running, quiet=1.0)
        await assert_verified(running)
        assert fake_ollama.embedded_texts() == []
    finally:
        running.stop()
        await asyncio.wait_for(task, 30)
