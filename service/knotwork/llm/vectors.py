"""An embedding model's answer, checked before its vectors are stored.

A model (or a proxy in front of it) can answer with the wrong number of vectors, vectors of
another size, NaN or infinity, or zeros. Stored, the first breaks the pairing of texts and
vectors (a sync stopped), NaN and infinity are refused by Neo4j's vector property (the note's
whole write failed), and a zero vector is kept as "embedded" but never enters the cosine index,
so its chunk is silently out of vector search's reach. Each is an answer to ask for again
later, never data.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from knotwork.errors import KnotworkError, ModelUnavailableError, VectorsRejectedError
from knotwork.llm.ollama_probe import model_not_found, not_pulled
from knotwork.redact import described

if TYPE_CHECKING:
    from llama_index.core.base.embeddings.base import BaseEmbedding

__all__ = ["VectorsRejectedError", "embed_batch", "rejected_fix", "vectors_problem"]

SIZE_PROBLEM = "returned a vector of size"  # another size than the graph's: a setting's matter


def vectors_problem(vectors: Sequence[Sequence[float]], count: int, dimension: int) -> str | None:
    """What is wrong with ``vectors`` as the embeddings of ``count`` texts, or None."""
    if len(vectors) != count:
        return f"returned {len(vectors)} vectors for {count} texts"
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
            vectors = await embedder.aget_text_embedding_batch(texts)
            break
        except KnotworkError:  # the in-process worker's own, which says what already
            if attempt == 2:
                raise
        except Exception as exc:  # the clients (httpx, ollama, openai) raise many kinds
            if attempt == 2:
                model = str(getattr(embedder, "model_name", "") or "")
                raise ModelUnavailableError(_failed(exc, model)) from exc
        await asyncio.sleep(1.0)
    if problem := vectors_problem(vectors, len(texts), dimension):
        raise VectorsRejectedError(problem)
    return [list(v) for v in vectors]


def _failed(exc: Exception, model: str) -> str:
    """Why a call failed, as the user acts on it: a server that did not answer (not running,
    unreachable, too slow), Ollama without the model (``model``) pulled, said as doctor says
    it, or one that answered with no embeddings (another model, a proxy's page, a body cut
    short). described(): a time-out has no text of its own."""
    import httpx

    if model and model_not_found(exc):
        return f"the embedding {not_pulled(model)}"
    said = described(exc, 300)
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
