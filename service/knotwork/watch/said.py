"""What a pass of the watcher wrote, said in one line at its end: a user running `knotwork
watch` in a terminal sees each edit, move and delete land, and a burst of a thousand notes as
one line, not a thousand."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from knotwork.ingest.changes import NoteOutcome, SyncReport

log = logging.getLogger(__name__)

LISTED = 3  # paths named per kind of change; the rest are counted
QUIET = frozenset({"unchanged", "missing"})  # a save that changed nothing says nothing


@dataclass
class PassReport:
    done: dict[str, list[str]] = field(default_factory=dict)  # what → paths, in order

    def add(self, what: str, path: str) -> None:
        if what not in QUIET:
            self.done.setdefault(what, []).append(path)

    def landed(self, outcome: NoteOutcome, rel: str) -> None:
        """A note's write as it landed: a move found by its text ("renamed") said with the
        path it left, as a move the events told is ("moved a → b")."""
        if outcome.status == "renamed" and outcome.renamed_from:
            self.add("moved", f"{outcome.renamed_from} → {rel}")
        else:
            self.add(outcome.status, rel)

    def say(self) -> None:
        """Log what the pass wrote ("written a.md; moved b.md → c.md; deleted 120: d.md, …
        and 117 more"), then start afresh."""
        parts = []
        for what, paths in self.done.items():
            shown = ", ".join(_escaped(p) for p in paths[:LISTED])
            more = f" and {len(paths) - LISTED} more" if len(paths) > LISTED else ""
            count = f"{len(paths)}: " if len(paths) > 1 else ""
            parts.append(f"{what} {count}{shown}{more}")
        if parts:
            log.info("%s", "; ".join(parts))
        self.done.clear()


def say_moves(
    said: PassReport, moves: Sequence[tuple[str, str]], outcomes: Sequence[NoteOutcome]
) -> None:
    """Each move (old path, new path) as it landed: "moved a → b"; onto a note the graph held,
    that note written and the old path deleted, as ``ingest`` says it (ingest/moved.py) — in a
    swap (``a → b``, ``b → a``) both written, none deleted."""
    status = {o.path: o.status for o in outcomes}
    for source, rel in moves:
        if status.get(rel, "renamed") == "renamed":
            said.add("moved", f"{source} → {rel}")
            continue
        said.add(status[rel], rel)
        if status.get(source) == "deleted":
            said.add("deleted", source)


def say_rescan(report: SyncReport, startup: bool) -> None:
    """What a rescan wrote, moved and deleted, said as a pass of changes says it: a folder
    moved out, or a checkout that empties the vault, lands in a rescan, not as events. Not the
    start-up sync (``startup``), with a progress bar or not (a watcher the API started): its
    summary says it, or it is the vault's own state read in, not a change of it."""
    if startup:
        return
    said = PassReport()
    for what, path in report.landed:
        said.add(what, path)
    said.say()


def _escaped(path: str) -> str:
    """``path`` with each character that does not print escaped as ``repr`` would (a line
    separator inside a name must not start a forged log line); names that print stay as is."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in path)
