"""An embedding model's answer, checked before its vectors are stored.

A model (or a proxy in front of it) can answer with the wrong number of vectors, vectors of
another size, NaN or infinity, or zeros. Stored, the first breaks the pairing of texts and
vectors (a sync stopped), NaN and infinity are refused by Neo4j's vector property (the note's
whole write failed), and a zero vector is kept as "embedded" but never enters the cosine index,
so its chunk is silently out of vector search's reach. Each is an answer to ask for again
later, never data. The model may answer garbage for one text only (NaN for it, a vector of
another size): ``embed_apart`` finds which, so the others' vectors are stored.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from knotwork.errors import KnotworkError, ModelUnavailableError, VectorsRejectedError
from knotwork.llm.bounded import bounded, failed
from knotwork.llm.ollama_probe import model_not_found, not_pulled
from knotwork.plural import counted

if TYPE_CHECKING:
    from llama_index.core.base.embeddings.base import BaseEmbedding

__all__ = ["VectorsRejectedError", "embed_apart", "embed_batch", "rejected_fix", "vectors_problem"]

SIZE_PROBLEM = "returned a vector of size"  # another size than the graph's: a setting's matter
# A text any model answers: asked after a refusal, to tell the texts a model refuses from a
# model that refuses everything (the chat model is asked it alike, ingest/modelcalls.py).
PROBE_TEXT = "Ada Lovelace wrote the first program for Charles Babbage's Analytical Engine."
Vectors = list[list[float] | None]  # one per text, None where the model's was refused


def vectors_problem(vectors: Sequence[Sequence[float]], count: int, dimension: int) -> str | None:
    """What is wrong with ``vectors`` as the embeddings of ``count`` texts, or None."""
    if len(vectors) != count:
        return f"returned {counted(len(vectors), 'vector')} for {counted(count, 'text')}"
    for vector in vectors:
        if len(vector) != dimension:
            return f"{SIZE_PROBLEM} {len(vector)}, not KNOTWORK_EMBED_DIMENSION={dimension}"
        # A plain sum, a quarter of a norm's cost on a sync's every vector: NaN and infinity
        # leave it non-finite (a finite vector summing past the float range is garbage too).
        if not math.isfinite(sum(vector)):
            return "returned a vector holding NaN or infinity"
        if not any(vector):
            return "returned a zero vector, which has no direction to compare by cosine"
    return None


def rejected_fix(exc: VectorsRejectedError) -> str:
    """What to do about a model answering vectors that cannot be stored: another size is the
    model or the dimension set, anything else a model or a proxy answering garbage."""
    if str(exc).startswith(SIZE_PROBLEM):
        return (
            "serve the model the graph was embedded with, or set KNOTWORK_EMBED_DIMENSION to "
            "this model's size and run `knotwork reembed`"
        )
    return (
        "check the model and anything between that rewrites its answers (`knotwork doctor` "
        "checks the model)"
    )


async def embed_batch(
    embedder: BaseEmbedding, texts: list[str], dimension: int
) -> list[list[float]]:
    """``texts`` embedded, asked twice when the call fails (a model being loaded may time out
    once). VectorsRejectedError for an answer that cannot be stored; ModelUnavailableError,
    naming what the client raised, when the call failed twice."""
    for attempt in (1, 2):
        try:
            # Bounded as a whole (a server dripping bytes), a call for each of the client's batches.
            calls = math.ceil(len(texts) / max(int(getattr(embedder, "embed_batch_size", 1)), 1))
            vectors = await bounded(embedder, embedder.aget_text_embedding_batch(texts), calls)
            break
        except KnotworkError:  # the in-process worker's own, which says what already
            if attempt == 2:
                raise
        except Exception as exc:  # the clients (httpx, ollama, openai) raise many kinds
            if attempt == 2:
                raise ModelUnavailableError(_failed(exc, embedder)) from exc
        await asyncio.sleep(1.0)
    if problem := vectors_problem(vectors, len(texts), dimension):
        raise VectorsRejectedError(problem)
    return [list(v) for v in vectors]


async def embed_apart(
    embedder: BaseEmbedding, texts: list[str], dimension: int, refusal: VectorsRejectedError
) -> Vectors:
    """The vectors of ``texts``, whose answer together was refused (``refusal``), asked again
    in halves, each refused half split again down to single texts: each text the model answers
    well has its vector, each it refuses None. ``refusal`` is raised, no half asked, when the
    model refuses ``PROBE_TEXT`` too: it refuses every text (another size, a broken model), and
    asking them apart would cost twice as many calls as texts for nothing. At most
    ``apart_asks(len(texts))`` requests are spent: enough to find one bad text among many, while
    a model refusing most texts but the probe costs a bounded few; the texts not told apart by
    then count as refused for this call. A model that fails meanwhile raises as
    ``embed_batch`` does."""
    if len(texts) > 1:
        try:
            await embed_batch(embedder, [PROBE_TEXT], dimension)
        except VectorsRejectedError:
            raise refusal from None
    return await _halves(embedder, texts, dimension, [apart_asks(len(texts))])


def apart_asks(count: int) -> int:
    """The requests ``embed_apart`` may spend on ``count`` texts: one bad text costs about
    two a halving, so this finds about four in a slice, while a model refusing every text but
    the probe costs a bounded few dozen requests, not twice as many as texts."""
    return 8 * math.ceil(math.log2(max(count, 1))) + 8


async def _halves(
    embedder: BaseEmbedding, texts: list[str], dimension: int, left: list[int]
) -> Vectors:
    """``texts``, refused together: each half asked alone, split again when refused, while
    requests are ``left`` (one count, shared by the whole descent)."""
    if len(texts) == 1:
        return [None]
    middle, found = len(texts) // 2, list[list[float] | None]()
    for half in (texts[:middle], texts[middle:]):
        if left[0] <= 0:  # the budget spent: what is not told apart waits as refused
            found += [None] * len(half)
            continue
        left[0] -= 1
        try:
            found += await embed_batch(embedder, half, dimension)
        except VectorsRejectedError:
            found += await _halves(embedder, half, dimension, left)
    return found


def _failed(exc: Exception, embedder: BaseEmbedding) -> str:
    """Why a call failed, as the user acts on it: a server that did not answer (not running,
    unreachable, too slow: its time-out named), Ollama without the model pulled, said as doctor
    says it, or one that answered with no embeddings (another model, a proxy's page, a body cut
    short)."""
    import httpx

    model = str(getattr(embedder, "model_name", "") or "")
    if model and model_not_found(exc):
        return f"the embedding {not_pulled(model)}"
    said = failed("embedding", embedder, exc)
    if isinstance(exc, (OSError, TimeoutError, httpx.TransportError)):
        return (
            f"the embedding model did not answer ({said}); check that its server is running "
            "(`knotwork doctor` says which) and try again"
        )
    return (
        f"the embedding model's server answered, but with no embeddings ({said}); check that "
        "KNOTWORK_EMBED_MODEL names an embedding model it serves and that nothing between "
        "rewrites its answers (`knotwork doctor` checks the model)"
    )
