"""A path waiting to be ingested (``Pending``), the deletes the watcher holds back past their
debounce, and the files its events name that can never be notes.

A `git checkout` of a branch that renames notes deletes the old files first and writes the new
ones later, all in one burst of events. A delete applied as soon as its debounce ended would
take the note out of the graph before its new file is read, and that file would be made anew:
embedded again, its history cut, its facts extracted again by the chat model. So a delete
that other notes' events follow waits until they pause (HOLD_QUIET_S), at most HOLD_MAX_S
after its first event, and a pass writes its deletes after its other changes: the new file
is then found as the held note moved (ingest/moved.py). A lone delete is not held; a note
renamed away beside itself waits a grace for an editor's save writing it anew (``resaved_away``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import PurePosixPath

from knotwork.vault.files import bad_name, is_note, note_path_problem

log = logging.getLogger("knotwork.watch.events")

HOLD_QUIET_S = 1.0  # a delete waits until no note's event came for this long (or a debounce)
HOLD_MAX_S = 10.0  # but never longer than this after its first event: a delete always lands


@dataclass
class Pending:
    due: float
    seen: float
    moved_from: str | None = None
    attempts: int = 0  # failed tries on the graph so far
    # The path's last event said a note is there (written, or moved in): found gone, it has
    # moved on or been deleted since, and the event saying which may lag: it waits for that
    # (watch/change.py), not to take a move for a delete.
    there: bool = False


def held(item: Pending, burst: float, heard: float, now: float, debounce: float) -> bool:
    """Whether ``item``, a delete (its path left, for no place known) whose debounce is over,
    still waits: the burst of note events it came in (begun at ``burst``, its last read at
    ``heard``) holds more than one and has not paused yet, and it has not waited HOLD_MAX_S.
    The deletes of one burst are thus let go together."""
    return not (
        item.there
        or item.moved_from is not None
        or heard <= burst
        or now - heard >= quiet_s(debounce)
        or now - item.seen >= HOLD_MAX_S
    )


def quiet_s(debounce: float) -> float:
    """How long the events of a burst pause before its deletes are let go."""
    return max(HOLD_QUIET_S, debounce)


def resaved_away(src: str, dest: str | None) -> bool:
    """A note at ``src`` renamed to ``dest``, a name beside it no note has (`a.md~`,
    `a.md.bak`, `.a.md.swp`): an editor's save may write the note anew at ``src`` after the
    debounce (a large note, a slow disk). Its delete waits GONE_WAIT_S (watch/events.py): a
    note there by then is an edit, its history kept, not a new note."""
    return (
        dest is not None
        and not is_note(dest)
        and PurePosixPath(dest).parent == PurePosixPath(src).parent
    )


def deletes_last(item: Pending) -> tuple[bool, bool]:
    """A pass's order: moves first, then writes, then deletes (a write may be a held note's
    move, found only while the graph still holds the note at its old path)."""
    return item.moved_from is None, not item.there


class Misnamed:
    """Markdown files whose names cannot be a note's path (not valid UTF-8, a backslash, a
    control character), named in the log once each as the events name them: such a file is
    never ingested until renamed, and a rescan only says so at its next run."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._said: set[str] = set()

    def say(self, rel: str | None) -> None:
        if rel is None or rel in self._said:
            return
        problem = note_path_problem(rel)  # None, or why: the name's alone is worth a word
        if problem is None or problem != bad_name(rel):
            return
        if len(self._said) >= self.limit:  # bounded: one said again at worst
            self._said.clear()
        self._said.add(rel)
        log.warning("not ingested: %s", problem)
