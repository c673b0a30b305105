"""A batch once written: each note's outcome from the write's results, then the chunks it left
pending extracted, note by note.

Extraction follows the structural write so that text and structure are searchable before the
model has answered. Its progress goes to an object the caller passes for this batch alone (a
sync's progress bar): the ingestor is shared by the API and the watcher, so a callback kept on
it would tell one caller's progress to another.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Protocol

from knotwork.ingest.batch import WriteResult
from knotwork.ingest.changes import CHAT_DOWN, CHAT_GARBAGE, NoteOutcome, Prepared
from knotwork.ingest.modelcalls import POSTPONED, ModelCalls

# Told (chunks extracted, of how many) as a batch's extraction goes: a sync's progress bar
# would otherwise stand still for the model's minutes per batch.
ExtractionProgress = Callable[[int, int], None]


class BatchProgress(Protocol):
    """Told how a sync's batch goes: its notes once written, then each chunk extracted. The
    write and the model's extraction are two phases of very different lengths, so a bar that
    counted notes only after their extraction would show none written for all of it."""

    def written(self, outcomes: list[NoteOutcome]) -> None:
        """The batch's notes are in the graph (their facts from the model still to come)."""

    def extracted(self, tried: int, of: int) -> None:
        """``tried`` of the batch's ``of`` pending chunks have had the model's answer."""


def record_results(prepared: Prepared, results: dict[str, WriteResult]) -> None:
    """Each written note's outcome filled from the write: links added and removed, chunks,
    facts by extractor and mentions, and its chunks pending extraction."""
    for outcome in prepared.outcomes:
        result = results.get(outcome.path)
        if result is None or outcome.status in ("unchanged", "missing"):
            continue
        outcome.added, outcome.removed = result.added, result.removed
        d = prepared.drafts.get(outcome.path)
        if d is None:
            continue
        outcome.chunks = len(d.chunks)
        outcome.facts = Counter(d.extractors)
        if result.mentions:
            outcome.facts["mention"] = result.mentions
    by_path = {outcome.path: outcome for outcome in prepared.outcomes}
    for w in prepared.batch.writes:  # the model's extraction still to come, before any is done
        by_path[w.path].pending = sum(r["extraction_state"] == "pending" for r in w.chunks)


async def extract_pending(
    models: ModelCalls, prepared: Prepared, on_extracted: ExtractionProgress | None = None
) -> None:
    """Ask the model about each chunk the write left pending, note by note, into each note's
    outcome; ``on_extracted`` is told (tried, of how many) as the first is asked (the step
    under way from then on, not the write before it) and after every chunk."""
    todo = []
    for w in prepared.batch.writes:
        outcome = next(o for o in prepared.outcomes if o.path == w.path)
        if outcome.models_down:  # extraction waits for `knotwork retry` too
            continue
        pending = [
            c
            for c, r in zip(prepared.drafts[w.path].chunks, w.chunks, strict=True)
            if r["extraction_state"] == "pending"
        ]
        todo.append((outcome, w.path, pending))
    total, tried = sum(len(pending) for _, _, pending in todo), 0
    if on_extracted is not None and total and models.extract_enabled:
        on_extracted(0, total)

    def tick() -> None:
        nonlocal tried
        tried += 1
        if on_extracted is not None:
            on_extracted(tried, total)

    for outcome, path, pending in todo:
        got = await models.extract(pending, path, tick)
        outcome.extracted = got.done
        outcome.pending = max(0, outcome.pending - got.done)
        outcome.facts.update(got.facts)
        outcome.warnings += got.warnings
        if any(POSTPONED in w for w in got.warnings):  # the chat model did not answer
            # (or answered garbage, its own probe too: the notes after it are postponed for it)
            outcome.waits_for.append(CHAT_GARBAGE if models.chat_garbage else CHAT_DOWN)
