"""Calibrating the relevance gate on a real vault: the floor is stored per vault and model,
read by retrieval, and refuses an off-topic question the uncalibrated gate let through."""

from __future__ import annotations

from pathlib import Path

import pytest

from knotwork.core import Core, open_core
from knotwork.errors import EmptyVaultError
from knotwork.graph.queries.admin import CALIBRATION_GET, CALIBRATION_PUT
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import relevance, retrieve
from knotwork.retrieve.calibrate import calibrate_vault, is_calibrated
from knotwork.settings import Settings
from tests.integration.conftest import put

NOTES = {
    "multiplexer.md": "# Multiplexer\n\nIl multiplexer seleziona uno degli ingressi e lo porta "
    "all'uscita secondo i bit di selezione; con n bit si scelgono 2^n ingressi.\n",
    "flip-flop.md": "# Flip-flop\n\nUn flip-flop è un elemento di memoria che conserva un bit "
    "e cambia stato sul fronte attivo del clock.\n",
    "complemento a due.md": "# Complemento a due\n\nNel complemento a due un numero negativo si "
    "ottiene invertendo i bit del positivo e sommando uno.\n",
    "limiti.md": "# Limiti\n\nIl limite di una successione è il valore a cui si avvicinano i "
    "suoi termini quando l'indice cresce.\n",
}


async def test_the_floor_is_stored_read_and_refuses_off_topic(
    settings: Settings, empty_db: object, vault: Path
) -> None:
    for path, text in NOTES.items():
        put(vault, path, text)
    off_topic = "Chi ha vinto la Coppa del Mondo di calcio nel 2006?"
    async with open_core(settings) as core:
        await core.ensure_ready()
        await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
        assert not await is_calibrated(core, "t")
        before = await retrieve(core, "t", off_topic, mode="retrieve")
    # The threshold at which this off-topic question passes the uncalibrated gate.
    lenient = settings.model_copy(update={"min_relevance": before.relevance})
    async with open_core(lenient) as core:
        told: list[tuple[int, int, str]] = []
        calibration = await calibrate_vault(core, "t", lambda *call: told.append(call))
        assert calibration.languages == ("it",) and calibration.probes == 16
        # Its seconds are no silence after a sync's bar: each probe asked moves a count.
        assert told == [(i, 16, "calibrating the relevance gate") for i in range(17)]
        assert max(calibration.probe_cosines) > 0 and 0 < calibration.floor < 1
        assert calibration.probe_mean < calibration.floor
        assert await is_calibrated(core, "t")
        # The gate reads the floor and the probes' mean back (coverage weighs text words by it).
        scale = await relevance.scale(core.store, "t", lenient.embed_model)
        assert scale == (calibration.floor, calibration.probe_mean)

        after = await retrieve(core, "t", off_topic, mode="retrieve")
        assert after.relevance < lenient.min_relevance <= before.relevance
        asked = await retrieve(core, "t", "Come funziona il multiplexer?", mode="retrieve")
        assert asked.hits[0].path == "multiplexer.md"
        assert asked.relevance >= lenient.min_relevance
        with pytest.raises(EmptyVaultError, match="holds no embedded chunks"):
            await calibrate_vault(core, "no-such-vault")
        # Another embedding model has no floor until it is calibrated.
        other = await core.store.read(CALIBRATION_GET, vault="t", embed_models=["another-model"])
        assert other == []


async def test_a_model_and_its_latest_tag_share_one_calibration(core: Core) -> None:
    """Ollama reads ``nomic-embed-text`` as ``nomic-embed-text:latest`` (graph/schema.py's
    same_model): a floor stored under either name is the other's too, and no other model's."""
    stored = {"floor": 0.4, "probe_mean": 0.2, "probes": 16, "languages": ["en"]}
    await core.store.write(CALIBRATION_PUT, vault="t", embed_model="nomic-embed-text", **stored)
    await core.store.write(CALIBRATION_PUT, vault="u", embed_model="bge-m3:latest", **stored)
    for vault, name in (
        ("t", "nomic-embed-text:latest"),
        ("u", "bge-m3"),
        ("t", "nomic-embed-text"),
    ):
        assert await relevance.scale(core.store, vault, name) == (0.4, 0.2), (vault, name)
        switched = core.settings.model_copy(update={"embed_model": name})
        async with open_core(switched) as other:
            assert await is_calibrated(other, vault), (vault, name)
    for vault, name in (("t", "nomic-embed-text-v2"), ("t", "nomic"), ("u", "bge-m3:567m")):
        assert await core.store.calibration(vault, name) is None, (vault, name)
