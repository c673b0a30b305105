"""The plain changes of a pass (upserts and deletes not part of a move) read and written in
batches: one transaction for up to ``BATCH_MAX`` notes, where one each made a burst (a folder
of notes copied in, hundreds deleted at once) take a minute and more to settle.

Each note is read as ``Ingestor.upsert_path`` reads it, under the notes' locks; one that cannot
be read (binary, too large, a link appeared) is left to the one-by-one path, which says why
once. What the batch writes is the same as one by one: ``Ingestor.apply`` drafts, embeds and
writes them against the graph's names with the batch applied. Moves are batched apart
(watch/moves.py), before these.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from knotwork.errors import VaultUnavailableError
from knotwork.ingest.changes import Change, Delete, NoteOutcome, Upsert
from knotwork.ingest.ingestor import Ingestor
from knotwork.vault.files import read_note
from knotwork.watch.events import Pending
from knotwork.watch.fallback import apply_in_batch

if TYPE_CHECKING:
    from knotwork.watch.apply import Applier

log = logging.getLogger("knotwork.watch.apply")  # the watcher's writes say it as one

BATCH_MAX = 100  # notes a watcher's transaction writes at most (a sync's are larger)


@dataclass
class Written:
    """What a batch did: each note written and its outcome, and the notes it left to the
    one-by-one path (unreadable, or the batch refused as a whole), in their order."""

    done: list[tuple[str, Pending, NoteOutcome]] = field(default_factory=list)
    singles: list[tuple[str, Pending]] = field(default_factory=list)
    # Now a move's source or destination: wait for that move (or, gone with no event saying
    # so, for the event: ``Applier.gone_unsaid``).
    back: list[tuple[str, Pending]] = field(default_factory=list)
    wait: list[tuple[str, Pending]] = field(default_factory=list)


def batch_size(ingestor: Ingestor) -> int:
    return max(1, min(ingestor.settings.ingest_batch, BATCH_MAX))


def _moving(applier: Applier, rel: str, sources: set[str]) -> bool:
    """A move out of ``rel`` waits (moved on meanwhile), or one onto it came after the pass
    took it: that move writes it, so this change must not (an old path deleted on its own, or
    the moved note's text written as a new version, both embedded again)."""
    newer = applier.pending.get(rel)
    return rel in sources or (newer is not None and newer.moved_from is not None)


async def write_plain(applier: Applier, plain: list[tuple[str, Pending]]) -> Written:
    """Read and write ``plain`` as one batch under its notes' locks. Raises what the write
    raised (the caller sorts an outage from a refusal); a note missing while the vault folder
    is away raises VaultUnavailableError before anything is written."""
    out = Written()
    ingestor = applier.ingestor
    async with ingestor.core.note_locks.hold(*(rel for rel, _ in plain)):
        changes: list[tuple[str, Pending, Change, list[str]]] = []
        for rel, item in plain:
            if not applier.folder.is_note_file(rel):
                changes.append((rel, item, Delete(rel), []))
                continue
            try:
                text = await asyncio.to_thread(
                    read_note, applier.root, rel, ingestor.settings.max_note_bytes
                )
            except Exception:  # said once, by the one-by-one path
                out.singles.append((rel, item))
                continue
            changes.append((rel, item, Upsert(rel, text.text, text.mtime), text.warnings))
        if any(isinstance(c, Delete) for _, _, c, _ in changes) and (
            away := await applier.folder.away()
        ):
            raise VaultUnavailableError(away)
        # A move out of or onto a note read here may have come while it was read: it waits
        # for that move, as in the one-by-one pass; one gone unsaid waits for its event.
        sources = applier.move_sources()
        for rel, item, change, _ in changes:
            if _moving(applier, rel, sources):
                out.back.append((rel, item))
            elif isinstance(change, Delete) and applier.gone_unsaid(rel, item):
                out.wait.append((rel, item))
        held = {rel for rel, _ in (*out.back, *out.wait)}
        changes = [c for c in changes if c[0] not in held]
        if changes:
            outcomes = await ingestor.apply([c for _, _, c, _ in changes])
            for (rel, item, _, warnings), outcome in zip(changes, outcomes, strict=True):
                outcome.warnings[:0] = warnings
                out.done.append((rel, item, outcome))
    return out


async def apply_batch(
    applier: Applier, plain: list[tuple[str, Pending]], consumed: set[str]
) -> bool:
    """Write plain changes as one batch: False when the pass ends (Neo4j
    or the vault folder away: they all wait). A batch refused otherwise, and a note that
    cannot be read, go one by one, so a bad note costs only itself."""

    async def batch(items: Sequence[tuple[str, Pending]]) -> list[tuple[str, Pending]]:
        written = await write_plain(applier, list(items))
        for rel, item in written.back:
            applier.pending.setdefault(rel, item)
        for rel, item in written.wait:
            applier.wait_for_event(rel, item)
        for rel, item, outcome in written.done:
            for warning in outcome.warnings:  # frontmatter ignored, bytes replaced, …
                log.warning("%s", warning)
            applier.said.landed(outcome, rel)
            applier.done(item)
        return written.singles

    async def one(change: tuple[str, Pending]) -> bool:
        rel, item = change
        if _moving(applier, rel, applier.move_sources()):  # a move came meanwhile: waits
            applier.pending.setdefault(rel, item)
            return True
        return await applier.apply_one(rel, item, consumed)

    return await apply_in_batch(applier, plain, consumed, batch, one)
