"""Calibrate a vault's relevance floor (see relevance.py) by retrieving its off-topic probes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from knotwork.core import Core
from knotwork.errors import EmptyVaultError, ModelUnavailableError
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


@dataclass(frozen=True)
class Tried:
    """What a try at a vault's first calibration came to: the floor ``made``, if any, and
    whether it is still ``owed`` (left for a later sync, or a running watcher's next try)."""

    made: Calibration | None = None
    owed: bool = False


async def calibrate_owed(
    core: Core,
    vault: str,
    pending: Callable[[], Awaitable[bool]],
    down: Callable[[ModelUnavailableError], None],
    progress: Callable[[int, int, str], None] | None = None,
) -> Tried:
    """Calibrate a vault not yet calibrated for this embedding model, the step `ingest` and
    `watch` take after a sync and a running watcher retries. Owed still while ``pending``
    (chunks wait for their embedding: probes against half-embedded notes would set the floor
    too low) or while the model is ``down`` (told why: the CLI warns, the watcher logs). A
    vault with no text owes none: the sync that brings some finds it uncalibrated."""
    if await is_calibrated(core, vault):  # by an earlier sync, `knotwork calibrate`, another
        return Tried()
    if await pending():
        return Tried(owed=True)
    try:
        return Tried(made=await calibrate_vault(core, vault, progress))
    except EmptyVaultError:
        return Tried()
    except ModelUnavailableError as exc:
        down(exc)
        return Tried(owed=True)
