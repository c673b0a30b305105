"""What the in-process embedders share: a LlamaIndex ``BaseEmbedding`` over a local model whose
encode call is blocking and CPU-bound, so callers stay provider-blind.

The model runs in a worker process of its own (``KNOTWORK_EMBED_WORKER=process``, the default;
knotwork.llm.embed_process) or in this process (``thread``). In this process its forward pass
shares one interpreter lock with whatever else the process does: numpy releases the lock for
each of its many small steps and waits for it after each, so an ingest's own Python (drafting,
mentions, the Bolt driver) slows the model far beyond its own CPU, and the two never use more
than one core between them. The worker costs a second interpreter (the model's memory moves
there; in all about the same) and the texts and vectors copied through a pipe.
"""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Literal

from llama_index.core.base.embeddings.base import BaseEmbedding, Embedding
from pydantic import Field, PrivateAttr

from knotwork.errors import ConfigError
from knotwork.llm.embed_process import EncoderProcess
from knotwork.settings import Settings

if TYPE_CHECKING:
    from knotwork.llm.encoders import Encoder, EncoderSpec

WorkerMode = Literal["process", "thread"]


class InProcessEmbedding(BaseEmbedding):
    """Encoding runs on this machine's CPU, one batch at a time (a lock serialises the worker
    threads the async methods use), so ``threads`` bounds the CPU it takes even when LlamaIndex
    sends batches concurrently; the event loop stays free meanwhile. Vectors are unit length,
    as cosine indexes expect. Subclasses call ``_start`` with their model's spec."""

    threads: int = Field(default=1, ge=1, description="CPU threads of the model")
    dimension: int = Field(default=0, description="size of the vectors the model returns")
    worker: WorkerMode = Field(
        default="process", description="where the model runs: a worker process, or this one"
    )
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _encoder: Encoder | None = PrivateAttr(default=None)
    _process: EncoderProcess | None = PrivateAttr(default=None)

    def _start(self, spec: EncoderSpec, process: EncoderProcess | None = None) -> None:
        """Load the model here, or start its worker (``process``: one launched already, for
        ``spec``) and wait until it has loaded it; either way the vector size is known after.
        ConfigError for a model that cannot be loaded."""
        if self.worker == "process":
            self._process = process if process is not None else EncoderProcess(spec)
            self.dimension = self._process.start()
        else:
            self._encoder, self.dimension = spec.load()

    @property
    def worker_pid(self) -> int | None:
        """The worker process's id while one runs (None in ``thread`` mode)."""
        return self._process.pid if self._process is not None else None

    def close(self) -> None:
        """Stop the worker process, if any (the Core does when it closes)."""
        if self._process is not None:
            self._process.close()

    def _encode(self, texts: list[str]) -> list[Embedding]:
        if not texts:
            return []
        with self._lock:
            if self._process is not None:
                vectors = self._process.encode(texts)
            else:
                assert self._encoder is not None
                vectors = self._encoder(texts)
        rows: list[Embedding] = vectors.tolist()
        return rows

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
        embedder.close()
        raise ConfigError(
            f"{settings.embed_model} gives {embedder.dimension}-dimensional vectors but "
            f"KNOTWORK_EMBED_DIMENSION={settings.embed_dimension}; set "
            f"KNOTWORK_EMBED_DIMENSION={embedder.dimension}."
        )
    return embedder
