"""What waits for a model, as the line that says its trouble once names it: the notes whose
chunks are pending embedding or extraction, counted, the first few named. Read from the graph
when the trouble begins, not once a pass; a write's own chunks, not stored yet, are counted
with them (``held``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from knotwork.errors import KnotworkError
from knotwork.graph.queries.writes import CHUNKS_WAITING
from knotwork.graph.store import GraphStore

log = logging.getLogger(__name__)

SHOWN = 3  # notes named; the rest are counted
Step = Literal["embedding", "extraction"]


@dataclass(frozen=True)
class Waiting:
    notes: int
    chunks: int
    shown: list[str] = field(default_factory=list)  # the first notes by path

    def __str__(self) -> str:
        """'5 chunks of 4 notes (A.md, B.md, C.md and 1 more)'."""
        more = f" and {self.notes - len(self.shown)} more" if self.notes > len(self.shown) else ""
        named = f" ({', '.join(self.shown)}{more})" if self.shown else ""
        return f"{_counted(self.chunks, 'chunk')} of {_counted(self.notes, 'note')}{named}"


def _counted(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def left_pending(chunks: int, finisher: str | None) -> str:
    """What becomes of a write's chunks left unembedded, as the writer that holds the vault
    has it: '1 chunk waits: the watcher embeds it once the model answers' under a writer that
    does the model's work in the background (``finisher``), or '3 chunks wait for `knotwork
    retry`' after a one-shot run, which nothing follows."""
    waits = f"{_counted(chunks, 'chunk')} {'waits' if chunks == 1 else 'wait'}"
    if finisher is None:
        return f"{waits} for `knotwork retry`"
    return f"{waits}: {finisher} embeds {'it' if chunks == 1 else 'them'} once the model answers"


async def read(
    store: GraphStore, vault: str, step: Step, held: Mapping[str, str] | None = None
) -> Waiting | None:
    """The chunks of ``vault`` pending ``step``, with ``held`` (chunk id → note path: the chunks
    of the call that met the trouble, a write's not stored yet); None when Neo4j fails the
    read, and the trouble is said without the count."""
    held = held or {}
    paths = sorted(set(held.values()))
    try:
        [row] = await store.read(
            CHUNKS_WAITING, vault=vault, step=step, ids=list(held), paths=paths, shown=SHOWN
        )
    except KnotworkError as exc:
        log.debug("what waits for the model not read: %s", exc)
        return None
    return Waiting(
        row["notes"] + len(paths),
        row["chunks"] + len(held),
        sorted({*row["shown"], *paths})[:SHOWN],
    )
