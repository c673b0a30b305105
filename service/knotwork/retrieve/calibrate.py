"""Calibrate a vault's relevance floor (see relevance.py) by retrieving its off-topic probes."""

from __future__ import annotations

from knotwork.core import Core
from knotwork.retrieve import relevance
from knotwork.retrieve.config import DEFAULT_TOP_K
from knotwork.retrieve.pipeline import retrieve
from knotwork.retrieve.relevance import Calibration


async def calibrate_vault(core: Core, vault: str) -> Calibration:
    """Retrieve every probe of the vault's languages as a question is retrieved (mode
    ``retrieve``, no model call), and store the floor of their best cosines."""

    async def best_cosine(question: str) -> float:
        evidence = await retrieve(core, vault, question, top_k=DEFAULT_TOP_K, mode="retrieve")
        return relevance.parts(question, evidence.hits)[0]

    settings = core.settings
    result = await relevance.calibrate(core.store, vault, settings.embed_model, best_cosine)
    core.relevance_floors.clear()  # the next question reads the new floor
    return result


async def is_calibrated(core: Core, vault: str) -> bool:
    """Whether the vault has a floor for the configured embedding model."""
    return await core.store.calibration(vault, core.settings.embed_model) is not None
