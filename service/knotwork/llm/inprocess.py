"""What the in-process embedders share: a LlamaIndex ``BaseEmbedding`` over a local model whose
encode call is blocking and CPU-bound, so callers stay provider-blind."""

from __future__ import annotations

import asyncio
import threading
from abc import abstractmethod

from llama_index.core.base.embeddings.base import BaseEmbedding, Embedding
from pydantic import Field, PrivateAttr

from knotwork.errors import ConfigError
from knotwork.settings import Settings


class InProcessEmbedding(BaseEmbedding):
    """Encoding runs on this process's CPU, one batch at a time (a lock serialises the worker
    threads the async methods use), so ``threads`` bounds the CPU it takes even when LlamaIndex
    sends batches concurrently; the event loop stays free meanwhile. Vectors are unit length,
    as cosine indexes expect. Subclasses load the model and implement ``_encode_batch``."""

    threads: int = Field(default=1, ge=1, description="CPU threads of the model")
    dimension: int = Field(default=0, description="size of the vectors the model returns")
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @abstractmethod
    def _encode_batch(self, texts: list[str]) -> list[Embedding]:
        """Unit-length vectors of ``texts``, in order; called under the lock."""

    def _probe_dimension(self) -> None:
        # One probe encode gives the true vector size (and warms the model up).
        self.dimension = len(self._encode(["dimension probe"])[0])

    def _encode(self, texts: list[str]) -> list[Embedding]:
        with self._lock:
            return self._encode_batch(texts)

    def _get_query_embedding(self, query: str) -> Embedding:
        return self._encode([query])[0]

    async def _aget_query_embedding(self, query: str) -> Embedding:
        return (await asyncio.to_thread(self._encode, [query]))[0]

    def _get_text_embedding(self, text: str) -> Embedding:
        return self._encode([text])[0]

    async def _aget_text_embedding(self, text: str) -> Embedding:
        return (await asyncio.to_thread(self._encode, [text]))[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[Embedding]:
        return self._encode(texts)

    async def _aget_text_embeddings(self, texts: list[str]) -> list[Embedding]:
        return await asyncio.to_thread(self._encode, texts)


def checked_dimension(embedder: InProcessEmbedding, settings: Settings) -> InProcessEmbedding:
    """``embedder``, or ConfigError when its vectors do not fit the configured dimension."""
    if embedder.dimension != settings.embed_dimension:
        raise ConfigError(
            f"{settings.embed_model} gives {embedder.dimension}-dimensional vectors but "
            f"KNOTWORK_EMBED_DIMENSION={settings.embed_dimension}; set "
            f"KNOTWORK_EMBED_DIMENSION={embedder.dimension}."
        )
    return embedder
