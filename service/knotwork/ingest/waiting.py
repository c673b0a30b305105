"""What waits for a model, as the line that says its trouble once names it: the notes whose
chunks are pending embedding or extraction, counted, the first few named. Read from the graph
when the trouble begins, not once a pass; a write's own chunks, not stored yet, are counted
with them (``held``)."""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Literal

from knotwork.errors import KnotworkError
from knotwork.graph.store import GraphStore
from knotwork.ingest import owed
from knotwork.outage import Outage
from knotwork.plural import counted

log = logging.getLogger(__name__)

SHOWN = 3  # notes named; the rest are counted
# Who does the chunks a model left pending while a watcher holds the vault (`knotwork retry`
# is refused then): a write's warning and `doctor` name it (``left_pending``'s ``finisher``).
WATCHER = "the watcher"
Step = Literal["embedding", "extraction"]
# What waits while the embedding model is down or answers garbage, when no chunk is counted.
NOT_COUNTED = "the chunks it has not embedded stay pending, out of vector search"


@dataclass(frozen=True)
class Waiting:
    notes: int
    chunks: int
    shown: list[str] = field(default_factory=list)  # the caller's notes, then the first by path

    def __str__(self) -> str:
        """'5 chunks of 4 notes (A.md, B.md, C.md and 1 more)'."""
        more = f" and {self.notes - len(self.shown)} more" if self.notes > len(self.shown) else ""
        named = f" ({', '.join(self.shown)}{more})" if self.shown else ""
        return f"{counted(self.chunks, 'chunk')} of {counted(self.notes, 'note')}{named}"


def left_pending(chunks: int, finisher: str | None, *, refused: bool = False) -> str:
    """What becomes of a write's chunks left unembedded, as the writer that holds the vault
    has it: '1 chunk waits: the watcher embeds it once the model answers' under a writer that
    does the model's work in the background (``finisher``), or '3 chunks wait for `knotwork
    retry`' after a one-shot run, which nothing follows. ``refused``: the model answered the
    call but refused these texts alone, so waiting for it to answer says nothing: they are
    asked again by a retry (the finisher's pass or `knotwork retry`) or when the note changes."""
    waits = f"{counted(chunks, 'chunk')} {'waits' if chunks == 1 else 'wait'}"
    if refused:
        texts = "its text" if chunks == 1 else "their texts"
        return (
            f"{waits}: the model refuses {texts}; asked again by "
            f"{finisher or '`knotwork retry`'} or when the note changes"
        )
    if finisher is None:
        return f"{waits} for `knotwork retry`"
    return f"{waits}: {finisher} embeds {'it' if chunks == 1 else 'them'} once the model answers"


async def read(
    store: GraphStore,
    vault: str,
    step: Step,
    held: Mapping[str, str] | None = None,
    done: Collection[str] = (),
) -> Waiting | None:
    """The chunks of ``vault`` pending ``step``, with ``held`` (chunk id → note path: the chunks
    of the call that met the trouble, a write's not stored yet), named first; ``done``: chunks
    of that call whose vectors came, stored next, not counted. None when Neo4j fails the read,
    and the trouble is said without the count."""
    held = held or {}
    paths = sorted(set(held.values()))
    ids = [*held, *done]
    try:
        found = await owed.read(store, vault, [step], ids=ids, paths=paths, shown=SHOWN)
    except KnotworkError as exc:
        log.debug("what waits for the model not read: %s", exc)
        return None
    pending = found.pending(step)
    # The call's own notes first: the notes it met the trouble for, not the first by path.
    return Waiting(
        pending.notes + len(paths), pending.chunks + len(held), [*paths, *pending.shown][:SHOWN]
    )


async def embedding(
    store: GraphStore,
    vault: str,
    outage: Outage,
    held: Mapping[str, str] | None,
    done: Collection[str] = (),
) -> str:
    """What waits for the embedding model as ``outage`` begins: its chunks in ``vault`` and
    ``held`` (``read``'s). Its later tries are said at debug level, without a count, as is a
    call for entity names (``held`` None). So far: a sync's later units are not written yet
    (its end says the total)."""
    if outage.since is not None or held is None:
        return NOT_COUNTED
    if (found := await read(store, vault, "embedding", held, done)) is None:
        return NOT_COUNTED
    return f"waiting for an embedding, out of vector search: {found} so far"
