"""Calibrate a vault's relevance floor (see relevance.py) by retrieving its off-topic probes."""

from __future__ import annotations

from collections.abc import Callable

from knotwork.core import Core
from knotwork.errors import ModelUnavailableError
from knotwork.retrieve import relevance
from knotwork.retrieve.config import DEFAULT_TOP_K
from knotwork.retrieve.pipeline import retrieve
from knotwork.retrieve.relevance import Calibration

CALIBRATING = "calibrating the relevance gate"  # the step a progress bar names


async def calibrate_vault(
    core: Core, vault: str, progress: Callable[[int, int, str], None] | None = None
) -> Calibration:
    """Retrieve every probe of the vault's languages as a question is retrieved (mode
    ``retrieve``, no model call), and store the floor of their best cosines. ``progress``
    counts the probes asked, each a retrieval with its question embedded."""

    settings = core.settings

    async def best_cosine(question: str) -> float:
        evidence = await retrieve(core, vault, question, top_k=DEFAULT_TOP_K, mode="retrieve")
        if evidence.dense_down:  # a cosine of 0, not a probe's: the floor would be noise
            raise not_embedded(settings.embed_model, question, evidence.warnings)
        return relevance.parts(question, evidence.hits)[0]

    told = (lambda done, of: progress(done, of, CALIBRATING)) if progress is not None else None
    result = await relevance.calibrate(core.store, vault, settings.embed_model, best_cosine, told)
    core.relevance_floors.clear()  # the next question reads the new floor
    return result


def not_embedded(model: str, question: str, warnings: list[str]) -> ModelUnavailableError:
    """The error that stops a calibration whose probe the embedding model did not embed: the
    floor stored before stays, and a vault without one is calibrated by the next sync."""
    why = "; ".join(w for w in warnings if w.startswith("vector retrieval skipped")) or "no vector"
    return ModelUnavailableError(
        f"relevance gate not calibrated: the embedding model {model!r} did not embed the probe "
        f"question {question!r} ({why}); the floor is left as it was. Run `knotwork calibrate` "
        "once the model answers (`knotwork doctor` checks it); `knotwork ingest` and `watch` "
        "calibrate a vault not yet calibrated after their sync"
    )


async def is_calibrated(core: Core, vault: str) -> bool:
    """Whether the vault has a floor for the configured embedding model."""
    return await core.store.calibration(vault, core.settings.embed_model) is not None
