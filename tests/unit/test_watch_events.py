"""The watcher's paths waiting out their debounce, without a file system or a database."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path

import pytest
from watchdog.events import (
    DirDeletedEvent,
    DirMovedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
)

from knotwork.watch import events, held
from knotwork.watch.events import PathEvents
from knotwork.watch.queue import WatchStatus


def test_a_path_that_keeps_changing_waits_at_most_max_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each event pushes a path's turn back by the debounce, but a note written every 200 ms
    (a transcript, a log) still gets its turn MAX_WAIT_S after its first change."""
    clock = [100.0]
    monkeypatch.setattr(events.time, "monotonic", lambda: clock[0])
    waiting = PathEvents(tmp_path, debounce=0.3, queue_max=100, status=WatchStatus())
    waiting._mark("log.md")
    assert waiting.pending["log.md"].due == pytest.approx(100.3)
    while clock[0] < 100 + events.MAX_WAIT_S + 2:
        clock[0] += 0.2
        waiting._mark("log.md")
    assert waiting.pending["log.md"].due == pytest.approx(100 + events.MAX_WAIT_S)
    waiting._mark("other.md")  # another path keeps its own debounce
    assert waiting.pending["other.md"].due == pytest.approx(clock[0] + 0.3)


def _moved(root: Path, src: str, dest: str, *, folder: bool = False) -> FileSystemEvent:
    kind = DirMovedEvent if folder else FileMovedEvent
    return kind(str(root / src), str(root / dest))


def _origins(waiting: PathEvents) -> dict[str, str | None]:
    return {path: item.moved_from for path, item in waiting.pending.items()}


async def test_a_note_renamed_twice_before_either_is_applied_is_one_move(tmp_path: Path) -> None:
    waiting = PathEvents(tmp_path, debounce=0.3, queue_max=100, status=WatchStatus())
    waiting.on_event(_moved(tmp_path, "a.md", "b.md"))
    waiting.on_event(_moved(tmp_path, "b.md", "c.md"))
    assert _origins(waiting) == {"a.md": None, "b.md": None, "c.md": "a.md"}
    waiting.on_event(_moved(tmp_path, "c.md", "a.md"))  # and back where it was
    assert _origins(waiting) == {"a.md": None, "b.md": None, "c.md": None}


async def test_a_folder_moved_twice_is_one_move_whatever_its_events_list(tmp_path: Path) -> None:
    """The first move's event is read once the folder has moved on (its listing is empty),
    and watchdog repeats each move for every file in the folder: still one move per note."""
    (tmp_path / "c").mkdir()
    (tmp_path / "c/n.md").write_text("# N\n")
    waiting = PathEvents(tmp_path, debounce=0.3, queue_max=100, status=WatchStatus())
    waiting.on_event(_moved(tmp_path, "a", "b", folder=True))  # b is gone already
    waiting.on_event(_moved(tmp_path, "b", "c", folder=True))
    waiting.on_event(_moved(tmp_path, "b/n.md", "c/n.md"))  # watchdog's repeat, per file
    assert _origins(waiting) == {"c/n.md": "a/n.md", "b/n.md": None}
    assert waiting.rescan_waiting and not waiting._rescan.is_set()  # after the debounce


async def test_a_folder_out_of_an_ignored_one_holds_new_notes_not_moves(tmp_path: Path) -> None:
    """Restored from .trash, a folder's notes come from paths the graph never held: new
    notes, and the .trash paths are not queued. Moved twice at once, the same."""
    (tmp_path / "Batch").mkdir()
    (tmp_path / "Batch/n.md").write_text("# N\n")
    waiting = PathEvents(tmp_path, debounce=0.3, queue_max=100, status=WatchStatus())
    waiting.on_event(_moved(tmp_path, ".trash/Batch", "Batch", folder=True))
    waiting.on_event(_moved(tmp_path, ".trash/Batch/n.md", "Batch/n.md"))  # watchdog's repeat
    assert _origins(waiting) == {"Batch/n.md": None}
    waiting = PathEvents(tmp_path, debounce=0.3, queue_max=100, status=WatchStatus())
    waiting.on_event(_moved(tmp_path, ".trash/Old", "Gone", folder=True))  # moved on already
    waiting.on_event(_moved(tmp_path, "Gone", "Batch", folder=True))
    assert _origins(waiting) == {"Batch/n.md": "Gone/n.md", "Gone/n.md": None}  # not .trash


async def test_a_chained_move_said_again_after_a_pass_took_its_path_stays_chained(
    tmp_path: Path,
) -> None:
    """a→b→c chained as one move from a; a pass then takes b (plain, nothing to write) before
    watchdog's repeat of b→c is read: the repeat is known, c still comes from a."""
    waiting = PathEvents(tmp_path, debounce=0.3, queue_max=100, status=WatchStatus())
    waiting.on_event(_moved(tmp_path, "a.md", "b.md"))
    waiting.on_event(_moved(tmp_path, "b.md", "c.md"))
    del waiting.pending["b.md"]  # taken by a pass
    waiting.on_event(_moved(tmp_path, "b.md", "c.md"))  # the repeat, read late
    assert _origins(waiting) == {"a.md": None, "c.md": "a.md", "b.md": None}
    (tmp_path / "b.md").write_text("# New\n")
    waiting.on_event(FileCreatedEvent(str(tmp_path / "b.md")))  # a new note at b
    waiting.on_event(_moved(tmp_path, "b.md", "d.md"))
    assert _origins(waiting)["d.md"] == "b.md"  # its own move, not a repeat


async def test_a_move_put_back_after_its_note_moved_on_is_chained(tmp_path: Path) -> None:
    """a→b taken by a pass and put back (Neo4j away, or b gone when read) after b→c was read
    meanwhile (c from b): one move a→c, b no move's source."""
    waiting = PathEvents(tmp_path, debounce=0.3, queue_max=100, status=WatchStatus())
    waiting.on_event(_moved(tmp_path, "a.md", "b.md"))
    taken = waiting.pending.pop("b.md")
    waiting.on_event(_moved(tmp_path, "b.md", "c.md"))
    assert _origins(waiting)["c.md"] == "b.md"
    waiting.put_back("b.md", taken, due=0.0, attempts=1, there=False)
    assert _origins(waiting) == {"a.md": None, "c.md": "a.md", "b.md": None}
    waiting.on_event(_moved(tmp_path, "b.md", "c.md"))  # watchdog's repeat
    assert _origins(waiting)["c.md"] == "a.md"


def _deleted(waiting: PathEvents, rel: str) -> None:
    waiting.on_event(FileDeletedEvent(str(waiting.root / rel)))


def test_a_delete_amid_a_burst_waits_for_the_burst_to_pause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`git checkout` deletes a renamed note, then writes it elsewhere: the delete waits while
    other notes' events keep coming (HOLD_QUIET_S), never past HOLD_MAX_S; a lone delete, a
    write, a stop are not held."""
    clock = [100.0]
    monkeypatch.setattr(events.time, "monotonic", lambda: clock[0])
    waiting = PathEvents(tmp_path, debounce=0.3, queue_max=100, status=WatchStatus())
    _deleted(waiting, "lone.md")
    lone = waiting.pending.pop("lone.md")
    assert waiting.is_due(lone, lone.due)  # nothing came after it
    _deleted(waiting, "People/a.md")
    clock[0] += 0.2
    waiting.on_event(FileCreatedEvent(str(tmp_path / "Renamed/a.md")))
    gone, new = waiting.pending["People/a.md"], waiting.pending["Renamed/a.md"]
    assert not waiting.is_due(gone, 100.5) and waiting.is_due(new, 100.5)
    assert waiting.is_due(gone, 100.2 + held.HOLD_QUIET_S)  # the burst paused
    waiting.status.stopping = True
    assert waiting.is_due(gone, 100.5)
    waiting.status.stopping = False
    while clock[0] < 100 + held.HOLD_MAX_S + 1:  # a note written without pause
        clock[0] += 0.5
        waiting.on_event(FileCreatedEvent(str(tmp_path / "log.md")))
        assert waiting.is_due(gone, clock[0]) == (clock[0] - 100 >= held.HOLD_MAX_S)
    # A pass writes its moves, then its writes, then its deletes.
    waiting.on_event(_moved(tmp_path, "b.md", "c.md"))
    order = sorted(waiting.pending, key=lambda p: held.deletes_last(waiting.pending[p]))
    assert order[0] == "c.md" and order[-2:] == ["People/a.md", "b.md"]


def test_a_note_renamed_away_beside_itself_waits_for_its_new_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor's save renaming the note to a backup beside it, then writing it anew: the
    delete waits GONE_WAIT_S, and a note there by then makes it a write. A note deleted (any
    delete: after `rm -rf` and a restore the folder is judged, not each note), moved
    elsewhere, or out of the vault, leaves as before, after its debounce."""
    clock = [100.0]
    monkeypatch.setattr(events.time, "monotonic", lambda: clock[0])
    waiting = PathEvents(tmp_path, debounce=0.3, queue_max=100, status=WatchStatus())
    waiting.on_event(_moved(tmp_path, "a.md", "a.md~"))
    waiting.on_event(_moved(tmp_path, "People/b.md", "People/.b.md.swp"))
    _deleted(waiting, "c.md")
    waiting.on_event(_moved(tmp_path, "d.md", "Backups/d.md~"))  # not beside it
    waiting.on_event(_moved(tmp_path, "e.md", "f.md"))  # a move
    waiting.on_event(FileMovedEvent(str(tmp_path / "g.md"), str(tmp_path.parent / "g.md~")))
    dues = {path: item.due for path, item in waiting.pending.items()}
    grace, debounce = 100 + events.GONE_WAIT_S, pytest.approx(100.3)
    assert dues == {
        "a.md": grace,
        "People/b.md": grace,
        "c.md": debounce,
        "d.md": debounce,
        "e.md": debounce,
        "f.md": debounce,
        "g.md": debounce,
    }
    clock[0] = 101.0  # the new file, past the debounce
    waiting.on_event(FileCreatedEvent(str(tmp_path / "a.md")))
    assert waiting.pending["a.md"].there and waiting.pending["a.md"].due == pytest.approx(101.3)


def test_a_file_whose_name_cannot_be_a_notes_is_named_in_the_log_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bad = os.fsdecode(b"r\xe9sum\xe9.md")  # not valid UTF-8: a lone surrogate in Python
    waiting = PathEvents(tmp_path, debounce=0.3, queue_max=100, status=WatchStatus())
    caplog.set_level(logging.WARNING, logger="knotwork")
    waiting.on_event(FileCreatedEvent(str(tmp_path / bad)))
    waiting.on_event(FileModifiedEvent(str(tmp_path / bad)))
    waiting.on_event(_moved(tmp_path, "note.md", os.fsdecode(b"bad\xff.md")))
    waiting.on_event(FileDeletedEvent(str(tmp_path / os.fsdecode(b"gone\xff.md"))))
    waiting.on_event(FileCreatedEvent(str(tmp_path / os.fsdecode(b".obsidian/x\xff.md"))))
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        "not ingested: 'r\\udce9sum\\udce9.md': the name is not valid UTF-8, so the graph "
        "cannot record it; rename it",
        "not ingested: 'bad\\udcff.md': the name is not valid UTF-8, so the graph cannot "
        "record it; rename it",
    ]
    assert list(waiting.pending) == ["note.md"]  # the note moved away: a delete


async def test_a_folders_rescan_waits_for_every_event_to_pause_as_a_held_delete(
    tmp_path: Path,
) -> None:
    """A folder deleted, then notes written back one by one (a restore): each event pushes
    the rescan back (read mid-restore, it deleted every note not yet copied), at most
    HOLD_MAX_S after the folder's event."""
    waiting = PathEvents(tmp_path, debounce=0.1, queue_max=100, status=WatchStatus())
    waiting.on_event(DirDeletedEvent(str(tmp_path / "Projects")))
    assert waiting._rescan_timer is not None
    first = waiting._rescan_timer.when()
    await asyncio.sleep(0.3)
    waiting.on_event(FileCreatedEvent(str(tmp_path / "Projects/a.md")))
    assert waiting._rescan_timer.when() >= first + 0.25  # pushed back by the note's event
    waiting._rescan_first = time.monotonic() - held.HOLD_MAX_S  # the bound reached
    waiting.on_event(FileCreatedEvent(str(tmp_path / "Projects/b.md")))
    assert waiting._rescan_timer.when() <= asyncio.get_running_loop().time() + 0.01
