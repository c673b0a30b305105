"""The vectors `knotwork reembed` asks of the new embedding model (graph/schema.py
``reembed``'s ``embed``): a refused page is asked apart as a sync's slice is (llm/vectors.py
``embed_apart``), so a text the model refuses for good waits for `knotwork retry` instead of
stopping at its page every run, each of which starts again from the first chunk."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from knotwork.llm.vectors import (
    PROBE_TEXT,
    Vectors,
    VectorsRejectedError,
    embed_apart,
    embed_batch,
)

if TYPE_CHECKING:  # LlamaIndex is imported only by a model call (see knotwork.llm)
    from llama_index.core.base.embeddings.base import BaseEmbedding


def vectors_apart(
    load: Callable[[], Awaitable[BaseEmbedding]], dimension: int
) -> Callable[[list[str]], Awaitable[Vectors]]:
    """The texts' vectors through the embedder ``load`` gives (``Core.load_embedder``: built
    at the first page, a model failing to load said as one out of reach), checked, and the
    texts of a refused page asked apart, None for each the model refuses alone. A model that
    refuses ``PROBE_TEXT`` too refuses everything: the page's VectorsRejectedError is raised,
    a page of one text probed here as well (``embed_apart`` probes a page of several only),
    or a model refusing everything would leave every chunk pending one page at a time."""

    async def embed(texts: list[str]) -> Vectors:
        embedder = await load()
        try:
            return list(await embed_batch(embedder, texts, dimension))
        except VectorsRejectedError as refusal:
            if len(texts) == 1:
                try:
                    await embed_batch(embedder, [PROBE_TEXT], dimension)
                except VectorsRejectedError:
                    raise refusal from None
            return await embed_apart(embedder, texts, dimension, refusal)

    return embed
