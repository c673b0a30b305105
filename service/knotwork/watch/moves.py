"""The moves of a pass (a folder renamed: hundreds of notes) written in batches: one transaction
renames up to ``BATCH_MAX`` notes through ``Ingestor.renames``, the write a single move makes
too, where one each left the folder half under each path, other notes' links to it unresolved,
for half a minute.

Each move is looked at under the notes' locks as watch/change.py looks at one: only a note at
its new path whose old path is gone is renamed in the batch, its text read as a single move
reads it. Any other (gone from its new path, its old path there again, unreadable, or sharing a
path with a move already in the batch) goes one by one after the batch, which says why or waits
for its event. A batch Neo4j refuses goes one by one too, so a bad note costs only itself;
Neo4j or the vault folder away, they all wait. Plain changes are watch/bulk.py's, after these.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from knotwork.ingest.changes import NoteOutcome
from knotwork.ingest.ingestor import Move
from knotwork.vault.files import NoteText, read_note
from knotwork.vault.write import exists_exactly
from knotwork.watch.change import keep_source
from knotwork.watch.events import Pending
from knotwork.watch.fallback import apply_in_batch
from knotwork.watch.said import say_moves

if TYPE_CHECKING:
    from knotwork.watch.apply import Applier

log = logging.getLogger("knotwork.watch.apply")  # the watcher's writes say it as one


@dataclass
class Moved:
    """What a batch of moves did: each note moved (its new path, change and old path), and the
    moves it left to the one-by-one path, in their order."""

    done: list[tuple[str, Pending, str]] = field(default_factory=list)
    singles: list[tuple[str, Pending]] = field(default_factory=list)
    outcomes: list[NoteOutcome] = field(default_factory=list)  # the batch's, as written


def _batched(applier: Applier, moves: list[tuple[str, Pending]]) -> Moved:
    """The moves a batch renames (in ``done``, not yet written) and those left to the
    one-by-one path: a rename needs the note at its new path and its old path gone, and no
    path of the batch twice (a→b with b→c: the second after the first, as one by one)."""
    out, paths = Moved(), set()
    for rel, item in moves:
        source = item.moved_from
        if (
            source is None
            or rel in paths
            or source in paths
            or not applier.folder.is_note_file(rel)
            or exists_exactly(applier.root / source, applier.root)
        ):
            out.singles.append((rel, item))
        else:
            paths |= {rel, source}
            out.done.append((rel, item, source))
    return out


async def write_moves(
    applier: Applier, moves: list[tuple[str, Pending]], consumed: set[str]
) -> Moved:
    """Rename the moves that can be as one batch under their notes' locks. Raises what the
    write raised, each old path waiting again (not in this pass) as watch/change.py's does."""
    ingestor, root = applier.ingestor, applier.root
    limit = ingestor.settings.max_note_bytes
    paths = [p for rel, item in moves for p in (rel, item.moved_from) if p is not None]
    async with ingestor.core.note_locks.hold(*paths):
        out = _batched(applier, moves)

        def read_all() -> list[NoteText | None]:  # one trip to a worker thread
            texts: list[NoteText | None] = []
            for rel, _, _ in out.done:
                try:
                    texts.append(read_note(root, rel, limit))
                except Exception:  # said once, by the one-by-one path
                    texts.append(None)
            return texts

        read = await asyncio.to_thread(read_all) if out.done else []
        renamed: list[Move] = []
        for (rel, item, source), text in zip(list(out.done), read, strict=True):
            if text is None:
                out.done.remove((rel, item, source))
                out.singles.append((rel, item))
            else:
                renamed.append((source, rel, text))
        if not renamed:
            return out
        taken = {source: applier.pending.pop(source, None) for source, _, _ in renamed}
        try:
            out.outcomes = await ingestor.renames(renamed)
        except BaseException:
            for source, waiting in taken.items():  # not moved: they wait again
                keep_source(applier, source, consumed, waiting)
            raise
    return out


async def apply_moves(
    applier: Applier, moves: list[tuple[str, Pending]], consumed: set[str]
) -> bool:
    """Write moves as one batch: False when the pass ends (Neo4j or the vault folder away:
    they all wait). A batch refused otherwise goes one by one."""

    async def batch(items: Sequence[tuple[str, Pending]]) -> list[tuple[str, Pending]]:
        moved = await write_moves(applier, list(items), consumed)
        for _, item, source in moved.done:
            consumed.add(source)
            applier.done(item)
        said = [(source, rel) for rel, _, source in moved.done]
        say_moves(applier.said, said, moved.outcomes)  # onto a note: written, and deleted
        return moved.singles

    return await apply_in_batch(applier, moves, consumed, batch, what="moves")
