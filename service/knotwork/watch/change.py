"""One change written to the graph as it is on disk: present → upsert (unchanged content writes
nothing), absent → delete, moved → rename (no re-embedding). Symbolic links are never followed:
a linked note, or a note under a linked folder, is treated as absent. A note missing from a
vault folder that is away is not deleted (watch/folder.py says whether a note is there), nor
one gone before the event saying where it went is read: it waits for that event
(watch/events.py ``gone_unsaid``). A move whose note is then gone from its new path too
leaves its old one to a rescan, which finds the note by its content. Which changes are due,
and how one that fails waits, is watch/apply.py's part.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from knotwork.errors import VaultUnavailableError
from knotwork.vault.write import exists_exactly
from knotwork.watch.events import Pending
from knotwork.watch.said import say_moves

if TYPE_CHECKING:
    from knotwork.watch.apply import Applier

log = logging.getLogger("knotwork.watch.apply")  # the watcher's writes say it as one


async def write_change(applier: Applier, rel: str, item: Pending, consumed: set[str]) -> bool:
    """One change written: False when it waits instead, its note gone unsaid."""
    source = item.moved_from
    # The notes' locks: a REST write in this process never interleaves with this one.
    async with applier.ingestor.core.note_locks.hold(rel, *([source] if source else [])):
        exists = applier.folder.is_note_file(rel)
        # A note missing from a folder that is not there is not known to be deleted.
        if not exists and (away := await applier.folder.away()):
            raise VaultUnavailableError(away)  # said as "the vault folder unavailable (…)"
        # Gone, and moved on (a→b read, then b→c while a→b was taken) or no event yet
        # saying where: chained, or waiting for that event, rather than deleted.
        if not exists and (
            applier.gone_unsaid(rel, item) or (source and applier.moved_onward(rel) is not None)
        ):
            if source:  # its note is at the old path in the graph: that waits with it
                keep_source(applier, source, consumed)
            applier.wait_for_event(rel, item)
            return False
        if exists and source and not exists_exactly(applier.root / source, applier.root):
            waiting = applier.pending.pop(source, None)
            try:
                outcomes = await applier.ingestor.renames([(source, rel, None)])
            except BaseException as exc:
                # Not moved: the old path waits again (not in this pass), for the move
                # tried again or, if that is given up, its own delete.
                keep_source(applier, source, consumed, waiting)
                if isinstance(exc, Exception) and not applier.folder.is_note_file(rel):
                    applier.wait_for_event(rel, item)  # moved on while it was read
                    return False
                raise
            consumed.add(source)
            say_moves(applier.said, [(source, rel)], outcomes)  # onto a note: written, deleted
            return True
        if not exists and source:  # gone at both ends, no event (waited for) said where
            _leave_to_rescan(applier, source, consumed)
        outcome = await (applier.ingestor.upsert_path if exists else applier.ingestor.delete)(rel)
        for warning in outcome.warnings:  # frontmatter ignored, bytes replaced, …
            log.warning("%s", warning)
        applier.said.landed(outcome, rel)
    return True


def _leave_to_rescan(applier: Applier, source: str, consumed: set[str]) -> None:
    """A move's old path whose note left its new path unsaid (moved on with its event
    later than GONE_WAIT_S, or deleted) is not deleted on its own: a rescan finds the note
    by its content wherever it went (deleted here, it would be made new there, embedded all
    again), and deletes it if it is nowhere."""
    applier.pending.pop(source, None)
    consumed.add(source)
    applier._rescan_when_quiet()


def keep_source(
    applier: Applier, source: str, consumed: set[str], item: Pending | None = None
) -> None:
    """A move's old path waits again, not in this pass: for the move tried again, or for
    its own delete if that is given up."""
    now = time.monotonic()
    kept = item or applier.pending.get(source) or Pending(now, now)
    applier.pending.setdefault(source, kept)
    consumed.add(source)
