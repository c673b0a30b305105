"""What a vault's pending chunks owe the models, step by step: their embeddings and their
extractions, counted apart, so that a run of background passes (ingest/model_work.py) names
only the steps it owes: "580 extractions" once every embedding is done, not "580 embeddings
and extractions"."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from knotwork.graph.queries.writes import CHUNKS_PENDING_COUNT
from knotwork.ingest.modelcalls import ModelCalls

EMBEDDINGS, EXTRACTIONS = "embeddings", "extractions"
# The step a pass's progress is at, by the first word retry_pending gives it.
DOING = {"embedded": EMBEDDINGS, "extracting": EXTRACTIONS}


@dataclass(frozen=True)
class Owed:
    embeddings: int = 0
    extractions: int = 0

    @property
    def steps(self) -> int:
        """A chunk owing both counts two, as a pass counts what it did."""
        return self.embeddings + self.extractions

    @property
    def kinds(self) -> set[str]:
        """The steps some chunk owes."""
        return {k for k, n in ((EMBEDDINGS, self.embeddings), (EXTRACTIONS, self.extractions)) if n}


def named(kinds: Collection[str]) -> str:
    """The steps of ``kinds`` in a phrase ("extractions"); both when none is known (the graph
    could not count them, nor a pass say)."""
    return " and ".join(k for k in (EMBEDDINGS, EXTRACTIONS) if k in kinds or not kinds)


async def owed(models: ModelCalls) -> Owed:
    """What the vault's chunks owe now: two counts (chunks_pending_count.cypher), the
    embeddings alone, then with the extractions when extraction is on."""
    store, vault = models.core.store, models.vault
    [embeddings] = await store.read(CHUNKS_PENDING_COUNT, vault=vault, extract=False)
    if not models.extract_enabled:
        return Owed(embeddings["steps"])
    [both] = await store.read(CHUNKS_PENDING_COUNT, vault=vault, extract=True)
    # A write between the two reads may leave fewer embeddings owed than the first said.
    return Owed(embeddings["steps"], max(both["steps"] - embeddings["steps"], 0))
