"""Writes handed to a watcher (202 ``accepted``), REST or MCP: journaled like every other write.

A watcher holding the lease may never see a write it was handed: killed, its lease stands until
its TTL and the write's file event goes to no one; stopped, its last look at the changes waiting
may come before the event of a write that read the lease just before it said it stops. So the
path is journaled before the file changes, as for a write this process ingests itself, and the
journal's replay applies it once the lease is free (a path the watcher applied meanwhile costs
the replay one unchanged-hash check: the graph is left as it is).

While the watcher lives, its lease keeps the replay out; the entries of the writes it applied go
here instead, or the journal would grow with every write made while a watcher runs. An entry
goes on its own write's evidence, never on another's (which may only hold it back), and never
at the look that first saw it: the graph may hold its text from before the write (a user's
edit, new note or move the watcher read but has not written yet), and the look's interval,
``REPLAY_EVERY_S``, lets that land first. At a later look it goes

- by its hash, once its write changed the file (``LANDED``): the graph's note of the entry's own
  path, as the disk spells that file, holds the content hash the write puts (a delete: no note
  at the path nor at a spelling of it the disk holds no file of its own by; on Linux
  ``Café.md`` composed and decomposed are two files and two notes) — and every other entry of
  the path is shown too (the journal keeps no order; A, B, then A again looks written while
  the graph still holds the first A);
- by its hash and the disk, before its file changed: as above, and the disk holds that text
  too (the graph holds the disk's version). A hash the graph held before the write, with the
  writer still to change the file (another process's write waiting on a query), proves nothing;
- by the disk alone, once its file changed (or for an older version's entry, which says
  nothing of its write; or one unmarked ``UNLANDED_FOR_S`` after this process first saw it,
  whose writer is taken for dead: killed between its entry and its file, or its mark lost in a
  crash — marks are not flushed): the graph holds the disk's version of the path, so the
  watcher applied the note as it is now (the write, or a later change).

The interval is a margin, not a guarantee: a watcher that read a file more than that before it
writes the note, and is killed right after, leaves the graph behind the disk until the next
sync; a writer slower than ``UNLANDED_FOR_S`` changes its file as a user would, for the watcher.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

from knotwork.core import Core
from knotwork.graph.queries.writes import NOTES_STATE
from knotwork.ingest.journal import Journal
from knotwork.ingest.journal_entry import DELETED, Entry
from knotwork.plural import counted
from knotwork.vault.files import read_group
from knotwork.vault.write import note_on_disk, unicode_forms

log = logging.getLogger(__name__)

UNLANDED_FOR_S = 60.0  # an entry whose write has not marked its file written by then: dead


Spelled = tuple[str | None, list[str]]  # the disk's spelling of the file (None: absent);
# the spellings of the path the disk holds no file by


class Handed:
    """The journal's entries of writes handed to a watcher, taken back once it applied them."""

    def __init__(self, core: Core, journal: Journal, vault: str) -> None:
        self.core, self.journal, self.vault = core, journal, vault
        self._seen: dict[tuple[str, str], float] = {}  # entry (key) → when a look first saw it

    async def prune(self) -> int:
        """Take back the entries whose write the graph shows; how many went. Any other entry
        stays for the replay."""
        root = self.core.settings.vault_path
        entries = self.journal.held()
        now = time.monotonic()
        first = {e.key: self._seen.get(e.key, now) for e in entries}
        again = {e for e in entries if e.key in self._seen}  # only these can go at this look
        self._seen = first
        if not again:
            return 0
        can_go = {e.path for e in again}  # the paths locked: a write of another goes on
        paths = sorted(can_go)
        of_paths = {e for e in entries if e.path in can_go}  # any may hold the others back
        # Locked: no write of this process to these paths half-done (its entry, file and mark
        # are under the note's lock); an entry added since the read above is not taken back.
        async with self.core.note_locks.hold(*paths):
            spelled = await asyncio.to_thread(_spellings, root, paths)
            wanted = {name for own, absent in spelled.values() for name in [*absent, own]}
            rows = await self.core.store.read(
                NOTES_STATE, vault=self.vault, paths=sorted(n for n in wanted if n is not None)
            )
            held = {row["path"]: row["content_hash"] for row in rows}
            shown = {e for e in of_paths if e.intent and _shows(e, spelled[e.path], held)}
            unsure = {e.path for e in of_paths - shown}  # an earlier text may be the graph's
            by_hash = {e for e in shown & again if e.path not in unsure}
            later = {
                e
                for e in again - by_hash
                if e.landed or not e.intent or now - first[e.key] >= UNLANDED_FOR_S
            }
            # An unlanded entry's hash in the graph may be the graph's from before its write
            # (its file not written yet, a user's edit on its way): only with the disk holding
            # it too.
            check = {e.path for e in later} | {e.path for e in by_hash if not e.landed}
            in_step = await self._in_step(root, check, spelled, held) if check and root else set()
            gone = {e for e in by_hash if e.landed or e.path in in_step}
            gone |= {e for e in later if e.path in in_step}
            self.journal.discard(gone)
        if gone:
            log.debug("%s handed to a watcher left the journal", counted(len(gone), "write"))
        return len(gone)

    async def _in_step(
        self, root: Path, paths: set[str], spelled: dict[str, Spelled], held: dict[str, str | None]
    ) -> set[str]:
        """The paths whose graph note is the disk's: the same content hash, or absent from
        both (a delete applied) — in every spelling the disk holds no file of its own by. A
        path that cannot be read now is not in step."""
        present = [own for rel in paths if (own := spelled[rel][0]) is not None]
        read = await asyncio.to_thread(read_group, root, present, self.core.settings.max_note_bytes)
        digests = {name: got[1] for name, got in read if isinstance(got, tuple)}

        def in_step(rel: str) -> bool:
            own, absent = spelled[rel]
            if own is None:
                return all(held.get(form) is None for form in absent)
            return own in digests and held.get(own) == digests[own]

        return {rel for rel in paths if in_step(rel)}


def _spellings(root: Path | None, paths: list[str]) -> dict[str, Spelled]:
    """For each path: the disk's spelling of its own file, as the replay reads it (None when
    the path names no file: on Linux another Unicode form of it is another file), and the
    spellings of it the disk holds no file by — those the graph may still hold it by."""

    found: dict[str, Spelled] = {}
    for rel in paths:
        forms = unicode_forms(rel)  # rel among them
        names = {form: note_on_disk(root, form) if root else None for form in forms}
        found[rel] = (names[rel], [form for form, name in names.items() if name is None])
    return found


def _shows(entry: Entry, spelled: Spelled, held: dict[str, str | None]) -> bool:
    """Whether the graph holds what ``entry``'s write puts: its hash at the note of the path's
    own file (the path itself, that file not there); for a delete, no note at the path nor at
    a spelling of it that is no other file's."""
    own, absent = spelled
    if entry.intent == DELETED:
        return all(held.get(name) is None for name in [*absent, *([own] if own else [])])
    return held.get(own or entry.path) == entry.intent
