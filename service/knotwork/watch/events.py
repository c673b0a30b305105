"""Watchdog's events as paths waiting to be ingested: each note path waits out its debounce,
a move remembers where it came from (a move out of a path a waiting move leads into is one move
from the first path: a→b→c, a folder moved twice or back), a folder's event marks every note
below it and asks for a rescan once the events pause, and too many waiting paths (or events)
drop them all for a rescan of the whole vault. Runs on the event loop; watch/apply.py applies
what is due."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from pathlib import Path

from watchdog.events import FileSystemEvent

from knotwork.vault.files import is_note, list_notes
from knotwork.watch.queue import IGNORED_EVENTS, EventGate, WatchStatus

log = logging.getLogger(__name__)
MAX_WAIT_S = 5.0  # the longest a path that keeps changing waits for its turn
MAX_HOPS = 16  # folder moves followed back from a path (two moved into each other: a loop)


@dataclass
class Pending:
    due: float
    seen: float
    moved_from: str | None = None
    attempts: int = 0  # failed tries on the graph so far
    # Its note moved on to this path before its own move in was applied (a→b→c: b's); the
    # same move said again (watchdog repeats a folder's move for each file in it) is known.
    moved_on: str | None = None


class PathEvents:
    """The paths waiting to be ingested, fed by watchdog's events."""

    def __init__(self, root: Path, debounce: float, queue_max: int, status: WatchStatus) -> None:
        self.root, self.debounce, self.queue_max, self.status = root, debounce, queue_max, status
        self.pending: dict[str, Pending] = {}
        self._handler: EventGate | None = None
        self._dropping = False  # after an overflow, until the rescan starts
        self._rescan = asyncio.Event()
        self._rescan_timer: asyncio.TimerHandle | None = None  # _rescan set once it fires
        self._rescan_first: float | None = None  # the first folder event it waits for
        # Folders moved (new path → path in the graph) that had moved on when their event was
        # read, so no note below them was marked; kept until the rescan a move starts.
        self._moved_folders: dict[str, str] = {}

    def _rel(self, raw: bytes | str) -> str | None:
        path = Path(raw.decode() if isinstance(raw, bytes) else raw)
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return None  # outside the vault

    def _mark(self, rel: str, moved_from: str | None = None) -> None:
        if self._dropping:
            return
        now = time.monotonic()
        old = self.pending.get(rel)
        # A move sets where the note comes from (none when it came back where it was); any
        # other event keeps what a move not yet applied said.
        origin = self._origin(moved_from, rel) if moved_from else (old.moved_from if old else None)
        seen = old.seen if old else now
        # Each event pushes the path's turn back by the debounce, but never past MAX_WAIT_S
        # after its first: a note written every 200 ms (a transcript, a log) is still ingested.
        self.pending[rel] = Pending(
            min(now + self.debounce, seen + max(MAX_WAIT_S, self.debounce)),
            seen,
            origin or None,
            moved_on=old.moved_on if old else None,
        )
        if len(self.pending) > self.queue_max:
            self._overflow(f"more than {self.queue_max} paths waiting to be ingested")

    def _origin(self, source: str, rel: str, depth: int = 0) -> str | None:
        """Where a note moved to ``rel`` from ``source`` comes from in the graph. Out of a path
        a move not yet applied leads into (a→b→c in quick succession, a folder moved twice)
        it is one move from that move's own source, and ``source`` only a path to look at
        (gone: nothing to delete); None when that source is ``rel`` (moved back)."""
        waiting = self.pending.get(source)
        if source == rel:
            first = waiting.moved_from if waiting else None
        elif waiting is not None and waiting.moved_from is not None:
            first, waiting.moved_from, waiting.moved_on = waiting.moved_from, None, rel
        elif waiting is not None and waiting.moved_on == rel and rel in self.pending:
            first = self.pending[rel].moved_from  # the same move said again
        elif (before := self._folder_origin(source)) != source and depth < MAX_HOPS:
            return self._origin(before, rel, depth + 1)
        else:
            first = source
        return None if first == rel else first

    def _folder_origin(self, path: str) -> str:
        """``path`` as it was before the folder moves whose notes were gone when their event
        was read (a folder moved twice at once: the second event alone names them)."""
        for moved, origin in self._moved_folders.items():
            if path == moved or path.startswith(f"{moved}/"):
                return origin + path[len(moved) :]
        return path

    def _rescan_when_quiet(self) -> None:
        """A rescan once the folder events have paused for the debounce (and at most
        MAX_WAIT_S after the first): started at once, it would read the vault halfway through
        a folder moved and moved back, or a checkout, and write its passing state — notes
        deleted, then embedded again as new when the events that follow are applied."""
        now = time.monotonic()
        self._rescan_first = self._rescan_first or now
        at = min(now + self.debounce, self._rescan_first + max(MAX_WAIT_S, self.debounce))
        if self._rescan_timer is not None:
            self._rescan_timer.cancel()
        self._rescan_timer = asyncio.get_running_loop().call_later(at - now, self._rescan_now_due)

    def _rescan_now_due(self) -> None:
        self._rescan_timer, self._rescan_first = None, None
        self._rescan.set()

    @property
    def rescan_waiting(self) -> bool:
        """A rescan asked for by a folder's event, waiting for the events to pause."""
        return self._rescan_timer is not None

    def _overflow(self, reason: str) -> None:
        """Too many changes to follow one by one: drop them and reconcile the whole vault."""
        if self._dropping:
            return
        dropped = len(self.pending)
        self.pending.clear()
        self._dropping = True
        self.status.overflows += 1
        self.status.last_overflow = (
            f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}: {reason}; "
            f"{dropped} pending paths dropped, the whole vault rescanned"
        )
        log.warning(
            "event queue overflow: %s; dropping %d pending paths and rescanning the "
            "whole vault (KNOTWORK_WATCH_QUEUE_MAX=%d)",
            reason,
            dropped,
            self.queue_max,
        )
        self._rescan.set()

    def _resume(self) -> None:
        """Follow events again; called as a rescan starts, so it sees what was dropped."""
        self._dropping = False
        self._moved_folders.clear()  # what the rescan reads is the graph's from then on
        if self._handler is not None:
            self._handler.resume()

    def queue_length(self) -> int:
        return len(self.pending) + (self._handler.inflight if self._handler else 0)

    def on_event(self, event: FileSystemEvent) -> None:
        if event.event_type in IGNORED_EVENTS or self._dropping:
            return
        self.status.events += 1
        self.status.last_event_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        src = self._rel(event.src_path)
        dest = self._rel(event.dest_path) if event.event_type == "moved" else None
        if event.is_directory:
            self._on_directory(event.event_type, src, dest)
            return
        if event.event_type == "moved":
            if dest and is_note(dest):
                self._mark(dest, src if src and is_note(src) else None)
            if src and is_note(src):
                self._mark(src)
        elif src and is_note(src):
            self._mark(src)

    def _on_directory(self, kind: str, src: str | None, dest: str | None) -> None:
        """A folder moved, appeared or vanished: every note below it is looked at."""
        if kind == "moved" and dest is not None:
            listed = list_notes(self.root / dest)
            for rel in listed:
                new = f"{dest}/{rel}"
                if is_note(new):
                    self._mark(new, f"{src}/{rel}" if src else None)
                    if src:
                        self._mark(f"{src}/{rel}")
            if src and not listed:  # moved on before this event was read: a move out of it
                self._moved_folders[dest] = src  # is one out of src
        elif kind == "created" and src and not (self.root / src).is_symlink():
            # A folder may appear inside an ignored one (a package unpacked in node_modules,
            # a folder moved into .trash from outside the vault): each note's whole path is
            # checked. A link to a folder is never followed, as a full sync does not.
            for rel in list_notes(self.root / src):
                if is_note(new := f"{src}/{rel}"):
                    self._mark(new)
        if kind in ("deleted", "moved") and src:
            self._rescan_when_quiet()  # which notes lived there the graph knows, not the disk
