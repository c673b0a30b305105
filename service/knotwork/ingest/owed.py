"""What a vault's pending chunks owe the models, step by step: their embeddings and their
extractions, counted apart by one read (chunks_owed.cypher), which every count of pending
chunks goes through: a run of background passes (ingest/model_work.py) names only the steps it
owes ("580 extractions" once every embedding is done, not "580 embeddings and extractions"), a
retry counts the chunks it still has to do, and the line that says a model's trouble names the
notes whose chunks wait (ingest/waiting.py)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from knotwork.graph.queries.writes import CHUNKS_OWED
from knotwork.graph.store import GraphStore

if TYPE_CHECKING:  # modelcalls.py counts through here (ingest/waiting.py): only its type
    from knotwork.ingest.modelcalls import ModelCalls

EMBEDDINGS, EXTRACTIONS = "embeddings", "extractions"
# The step a pass's progress is at, by the first word retry_pending gives it.
DOING = {"embedded": EMBEDDINGS, "extracting": EXTRACTIONS}


@dataclass(frozen=True)
class Pending:
    """The chunks pending one step ('embedding' or 'extraction'), with their notes."""

    chunks: int = 0
    notes: int = 0
    shown: tuple[str, ...] = ()  # the first notes by path, as many as were asked for


@dataclass(frozen=True)
class Owed:
    embeddings: int = 0
    extractions: int = 0
    # The chunks owing either step (one owing both is one): what a retry still has to do.
    chunks: int = field(default=0, compare=False)
    by_step: Mapping[str, Pending] = field(default_factory=dict, compare=False)

    @property
    def steps(self) -> int:
        """A chunk owing both counts two, as a pass counts what it did."""
        return self.embeddings + self.extractions

    @property
    def kinds(self) -> set[str]:
        """The steps some chunk owes."""
        return {k for k, n in ((EMBEDDINGS, self.embeddings), (EXTRACTIONS, self.extractions)) if n}

    def pending(self, step: str) -> Pending:
        """The chunks pending ``step``, by note."""
        return self.by_step.get(step, Pending())


def named(kinds: Collection[str]) -> str:
    """The steps of ``kinds`` in a phrase ("extractions"); both when none is known (the graph
    could not count them, nor a pass say)."""
    return " and ".join(k for k in (EMBEDDINGS, EXTRACTIONS) if k in kinds or not kinds)


async def read(
    store: GraphStore,
    vault: str,
    steps: Collection[str],
    *,
    ids: Collection[str] = (),
    paths: Collection[str] = (),
    shown: int = 0,
) -> Owed:
    """What the chunks of ``vault`` owe of ``steps`` ('embedding', 'extraction'): each read
    only when asked about. The chunks ``ids`` are left out, the notes ``paths`` left out of
    each step's notes; ``shown``: the notes named per step."""
    rows = await store.read(
        CHUNKS_OWED, vault=vault, steps=list(steps), ids=list(ids), paths=list(paths), shown=shown
    )
    by_step = {r["step"]: Pending(r["chunks"], r["notes"], tuple(r["shown"])) for r in rows}
    embeddings = by_step.get("embedding", Pending()).chunks
    extractions = by_step.get("extraction", Pending()).chunks
    chunks = embeddings + extractions - sum(r["both"] for r in rows)  # one owing both is one
    return Owed(embeddings, extractions, chunks, by_step)


async def owed(models: ModelCalls) -> Owed:
    """What the vault's chunks owe now, extractions counted when extraction is on (off, chunks
    keep their state for the day it is turned on)."""
    steps = ("embedding", "extraction") if models.extract_enabled else ("embedding",)
    return await read(models.core.store, models.vault, steps)
