"""Watchdog's events as paths waiting to be ingested: each note path waits out its debounce,
a move remembers where it came from, a folder's event marks every note below it, and too many
waiting paths (or events) drop them all for a rescan of the whole vault. Runs on the event
loop; watch/apply.py applies what is due."""

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


@dataclass
class Pending:
    due: float
    seen: float
    moved_from: str | None = None
    attempts: int = 0  # failed tries on the graph so far


class PathEvents:
    """The paths waiting to be ingested, fed by watchdog's events."""

    def __init__(self, root: Path, debounce: float, queue_max: int, status: WatchStatus) -> None:
        self.root, self.debounce, self.queue_max, self.status = root, debounce, queue_max, status
        self.pending: dict[str, Pending] = {}
        self._handler: EventGate | None = None
        self._dropping = False  # after an overflow, until the rescan starts
        self._rescan = asyncio.Event()

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
        seen = old.seen if old else now
        # Each event pushes the path's turn back by the debounce, but never past MAX_WAIT_S
        # after its first: a note written every 200 ms (a transcript, a log) is still ingested.
        self.pending[rel] = Pending(
            min(now + self.debounce, seen + max(MAX_WAIT_S, self.debounce)),
            seen,
            moved_from or (old.moved_from if old else None),
        )
        if len(self.pending) > self.queue_max:
            self._overflow(f"more than {self.queue_max} paths waiting to be ingested")

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
            for rel in list_notes(self.root / dest):
                new = f"{dest}/{rel}"
                if is_note(new):
                    self._mark(new, f"{src}/{rel}" if src else None)
                    if src:
                        self._mark(f"{src}/{rel}")
        elif kind == "created" and src and not (self.root / src).is_symlink():
            # A folder may appear inside an ignored one (a package unpacked in node_modules,
            # a folder moved into .trash from outside the vault): each note's whole path is
            # checked. A link to a folder is never followed, as a full sync does not.
            for rel in list_notes(self.root / src):
                if is_note(new := f"{src}/{rel}"):
                    self._mark(new)
        if kind in ("deleted", "moved") and src:
            self._rescan.set()  # which notes lived there is known to the graph, not the disk
