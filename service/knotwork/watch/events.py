"""Watchdog's events as paths waiting to be ingested: each note path waits out its debounce (a
delete amid a burst longer: watch/held.py), a move remembers where it came from (a move out of a
path a waiting move leads into is one move from the first path: a→b→c, a folder moved twice or
back), a folder's event marks every note below it and asks for a rescan once the events pause,
and too many waiting paths (or events) drop them all for a rescan of the whole vault (any rescan
takes what waits: it reads the folder after their events; one that fails puts it back). A change
a pass took and could not apply waits again here (a move whose note moved on meanwhile chained
from its first path), as does a note found gone before the event saying where it went is read.
Runs on the event loop; watch/apply.py applies what is due."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import time
from pathlib import Path

from watchdog.events import FileSystemEvent

from knotwork.plural import counted
from knotwork.vault.files import is_note, list_notes
from knotwork.watch.created import CreatedFolders
from knotwork.watch.held import HOLD_MAX_S, Misnamed, held, quiet_s, resaved_away
from knotwork.watch.held import Pending as Pending  # where the watcher's modules import it
from knotwork.watch.queue import IGNORED_EVENTS, EventGate, WatchStatus

log = logging.getLogger(__name__)
MAX_WAIT_S = 5.0  # the longest a path that keeps changing waits for its turn
MAX_HOPS = 16  # folder moves followed back from a path (two moved into each other: a loop)
# A note found gone with no event saying it left (moved while a pass wrote, the event not yet
# read; watchdog holds an unpaired move ~0.5 s, a polling observer looks once a second) waits
# this long for that event before it is deleted: the event may make it a move. A note renamed
# away beside itself waits as long for its new file (held.py ``resaved_away``; not a note
# deleted: after `rm -rf` and a restore, before the folder is seen replaced and judged whole).
GONE_WAIT_S = 2.0


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
        # Paths whose note moved on before its move in was applied (a→b→c: b → c), chained as
        # one move: the same move said again (watchdog repeats a folder's move for each note
        # in it, late on a busy machine) is known even after a pass took b; kept until
        # something new is at b or a rescan starts.
        self._moved_on: dict[str, str] = {}
        self._moves_left: set[str] = set()  # the moves a pass applies first, not yet taken
        self._moves_now = False  # a rescan begins: every move waiting is due
        self._burst = self._heard = 0.0  # when this burst of note events began, its last
        self.event_at = 0.0  # when the last event of any kind was read
        self.judging = False  # the folder replaced, its rescan to judge it (watch/rescans.py)
        self._misnamed = Misnamed(queue_max)
        self._created = CreatedFolders(root, functools.partial(self._mark, there=True))

    def _rel(self, raw: bytes | str) -> str | None:
        path = Path(raw.decode() if isinstance(raw, bytes) else raw)
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return None  # outside the vault

    def _mark(
        self, rel: str, moved_from: str | None = None, *, there: bool = False, grace: bool = False
    ) -> None:
        if self._dropping:
            return
        now = time.monotonic()
        old = self.pending.get(rel)
        if there:  # a note is at rel now: a move out of it is a new one
            self._moved_on.pop(rel, None)
        # A move sets where the note comes from (none when it came back where it was); any
        # other event keeps what a move not yet applied said.
        origin = self._origin(moved_from, rel) if moved_from else (old.moved_from if old else None)
        if now - self._heard >= quiet_s(self.debounce):  # the events had paused
            self._burst = now
        seen, self._heard = (old.seen if old else now), now
        # Each event pushes the path's turn back by the debounce, but never past MAX_WAIT_S
        # after its first: a note written every 200 ms (a transcript, a log) is still ingested.
        due = min(now + self.debounce, seen + max(MAX_WAIT_S, self.debounce))
        due = max(due, now + GONE_WAIT_S) if grace else due  # a save writing it anew?
        self.pending[rel] = Pending(due, seen, origin or None, there=there)
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
        elif self._moved_on.get(source) == rel:  # the same move said again: as first said
            first = self.pending[rel].moved_from if rel in self.pending else None
        elif waiting is not None and waiting.moved_from is not None:
            first, waiting.moved_from = waiting.moved_from, None
            self._moved_on[source] = rel
        elif (before := self._folder_origin(source)) != source and depth < MAX_HOPS:
            return self._origin(before, rel, depth + 1)
        else:
            first = source
        return None if first == rel else first

    def put_back(self, rel: str, item: Pending, due: float, attempts: int, there: bool) -> None:
        """A change taken off ``pending`` waits again, due at ``due``, unless a newer one for
        the path came (it keeps the move this one was). A move whose note moved on while it
        was out (a→b taken, b→c read meanwhile: c from b) is chained as one move a→c, as it
        is while a→b waits, so that b, never in the graph, is no move's source."""
        source = item.moved_from
        if source is not None:
            onward = self.moved_onward(rel)
            if onward is not None:
                self.pending[onward].moved_from = None if onward == source else source
                self._moved_on[rel], source = onward, None
        newer = self.pending.setdefault(rel, Pending(due, item.seen, source, attempts, there))
        newer.moved_from = newer.moved_from or source

    def moved_onward(self, rel: str) -> str | None:
        """The path a waiting move takes the note at ``rel`` to, if one does."""
        return next((p for p, v in self.pending.items() if v.moved_from == rel), None)

    def move_sources(self) -> set[str]:
        """The old paths of the moves waiting, but for those the pass applies before its plain
        changes: a folder moved on while its first move is written leads its notes' moves out
        of the first move's old paths, and a move may come onto a path the pass took; their
        old paths must not be deleted on their own."""
        return {
            v.moved_from
            for p, v in self.pending.items()
            if v.moved_from and p not in self._moves_left
        }

    def gone_unsaid(self, rel: str, item: Pending) -> bool:
        """``rel`` gone with no event yet saying its note left (deleted or moved away): moved
        while the pass wrote, its event still to be read. Not when stopping: nothing waits."""
        newer = self.pending.get(rel)
        there = newer.there if newer is not None else item.there
        return there and not (self.status.stopping or os.path.lexists(self.root / rel))

    def wait_for_event(self, rel: str, item: Pending) -> None:
        """A change whose note is gone unsaid waits for the event saying where it went (a move
        then chains from it), at most GONE_WAIT_S; then it is applied as it is."""
        due = time.monotonic() + max(GONE_WAIT_S, self.debounce)
        self.put_back(rel, item, due, item.attempts, there=False)

    def _folder_origin(self, path: str) -> str:
        """``path`` as it was before the folder moves whose notes were gone when their event
        was read (a folder moved twice at once: the second event alone names them)."""
        for moved, origin in self._moved_folders.items():
            if path == moved or path.startswith(f"{moved}/"):
                return origin + path[len(moved) :]
        return path

    def _rescan_when_quiet(self) -> None:
        """A rescan once the events pause as a held delete's do (each restarts the wait), at
        most HOLD_MAX_S after the first (unbounded while judging a replaced folder): at once,
        it would write a checkout's or a restore's passing state (notes deleted, then new)."""
        now = time.monotonic()
        self._rescan_first = self._rescan_first or now
        quiet = quiet_s(self.debounce)
        bound = now + quiet if self.judging else self._rescan_first + max(HOLD_MAX_S, quiet)
        at = min(now + quiet, bound)
        if self._rescan_timer is not None:
            self._rescan_timer.cancel()
        self._rescan_timer = asyncio.get_running_loop().call_later(at - now, self._rescan_now_due)

    def rescan_begins(self) -> None:
        """A rescan is starting, and will take what waits: the pass before it writes each move
        waiting, due or not (an event read meanwhile may push its turn back again). The rescan
        finds moves by content alone: a note moved and then edited would be made anew, its
        old path deleted, its text embedded again and its history cut."""
        self._rescan.clear()
        self._moves_now = True

    def is_due(self, item: Pending, now: float) -> bool:
        """Its turn has come: its debounce is over (a delete amid a burst is held, and the
        last of a pass: watch/held.py), or it is a move and a rescan begins."""
        if self._moves_now and item.moved_from is not None:
            return True
        burst = (self._burst, self._heard)
        free = self.status.stopping or not held(item, *burst, now, self.debounce)
        return item.due <= now and free and not self.judging  # judging: its rescan takes all

    def _rescan_now_due(self) -> None:
        self._rescan_timer, self._rescan_first = None, None
        self._rescan.set()

    def gate(self, loop: asyncio.AbstractEventLoop) -> EventGate:
        """A new gate handing watchdog's events to ``loop``: the one an overflow's rescan
        opens again."""
        self._handler = EventGate(loop, self.on_event, self._overflow, self.queue_max)
        return self._handler

    def ask_rescan(self) -> None:
        """A rescan as soon as the loop looks (an observer restarted, the folder replaced)."""
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
            f"{counted(dropped, 'pending path')} dropped, the whole vault rescanned"
        )
        log.warning(
            "event queue overflow: %s; dropping %s and rescanning the "
            "whole vault (KNOTWORK_WATCH_QUEUE_MAX=%d)",
            reason,
            counted(dropped, "pending path"),
            self.queue_max,
        )
        self._rescan.set()

    def _resume(self) -> dict[str, Pending]:
        """Follow events again; called as a rescan starts, so it sees what was dropped. What
        waits is taken off too, and returned: the rescan reads the folder after every event
        that made it wait, and finds moves by content. Kept, a waiting move would still name
        the old path the rescan moved, and a move read after the rescan chained from it would
        delete the note the rescan put at the new path. A rescan that fails puts it back."""
        self._dropping = False
        waiting = dict(self.pending)
        self.pending.clear()
        self._moved_folders.clear()  # what the rescan reads is the graph's from then on
        self._moved_on.clear()
        if self._handler is not None:
            self._handler.resume()
        return waiting

    def queue_length(self) -> int:
        return len(self.pending) + (self._handler.inflight if self._handler else 0)

    def on_event(self, event: FileSystemEvent) -> None:
        if event.event_type in IGNORED_EVENTS:
            return
        self.event_at = time.monotonic()  # dropped after an overflow, still not quiet
        if self._rescan_timer is not None:  # a restore under way: read once it ends
            self._rescan_when_quiet()
        if self._dropping:
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
                self._mark(dest, src if src and is_note(src) else None, there=True)
            if src and is_note(src):
                self._mark(src, grace=resaved_away(src, dest))
        elif src and is_note(src):
            self._mark(src, there=event.event_type != "deleted")
        if event.event_type != "deleted":
            self._misnamed.say(dest or src)

    def _on_directory(self, kind: str, src: str | None, dest: str | None) -> None:
        """A folder moved, appeared or vanished: every note below it is looked at."""
        if kind == "moved" and dest is not None:
            listed = list_notes(self.root / dest)
            for rel in listed:
                new = f"{dest}/{rel}"
                # Only a note's path can be a move's source: one out of an ignored folder
                # (restored from .trash) is a new note, written with the rest in a batch.
                old = f"{src}/{rel}" if src and is_note(f"{src}/{rel}") else None
                if is_note(new):
                    self._mark(new, old, there=True)
                    if old:
                        self._mark(old)
            # Moved on before this event was read: a move out of it is one out of src (if
            # notes can lie in src: any note's path there would do).
            if src and not listed and is_note(f"{src}/note.md"):
                self._moved_folders[dest] = src
        elif kind == "created" and src:  # listed off the loop, once per burst (watch/created.py)
            self._created.add(src)
        if kind in ("deleted", "moved") and src:
            self._rescan_when_quiet()  # which notes lived there the graph knows, not the disk
