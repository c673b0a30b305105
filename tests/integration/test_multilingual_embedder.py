"""The in-process multilingual embedder end to end: German notes ingested with USE multilingual
into a 512-dimensional vector index, and a question that shares no content word with its note
(so full text cannot find it) retrieves that note first by meaning alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from knotwork.core import open_core
from knotwork.graph.queries.admin import VAULT_STATS
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.llm.clients import USE_DIMENSION, USE_MODEL
from knotwork.retrieve import retrieve
from knotwork.retrieve.config import PRESETS
from knotwork.retrieve.rank import terms
from knotwork.settings import Settings
from tests.integration.conftest import put

NOTES = {
    "Photosynthese.md": "# Photosynthese\n\nGrüne Pflanzen wandeln Kohlendioxid und Wasser "
    "in Zucker und Sauerstoff um. Das Chlorophyll in den Blättern fängt dafür die Energie "
    "der Strahlung ein.\n",
    "Vulkan.md": "# Vulkan\n\nWo Magma aus dem Erdinneren an die Oberfläche dringt, entsteht "
    "ein Vulkan. Bei einem Ausbruch fließt Lava den Hang hinab und Asche steigt auf.\n",
    "Eisenbahn.md": "# Eisenbahn\n\nZüge fahren auf Schienen zwischen Bahnhöfen; der "
    "Fahrplan legt Abfahrt und Ankunft fest, Stellwerke sichern die Strecke.\n",
    "Sauerteig.md": "# Sauerteig\n\nMehl und Wasser gären einige Tage mit wilden Hefen und "
    "Milchsäurebakterien; der Teig geht langsam auf und schmeckt säuerlich.\n",
    "Fußball.md": "# Fußball\n\nZwei Mannschaften mit je elf Spielern versuchen, den Ball "
    "ins gegnerische Tor zu schießen; ein Spiel dauert zweimal 45 Minuten.\n",
}
# (question, the note it asks about): no content word of a question is in its note.
PARAPHRASES = [
    ("Wie stellen Gewächse mithilfe des Sonnenlichts ihre Nahrung her?", "Photosynthese.md"),
    ("Was passiert, wenn ein feuerspeiender Berg ausbricht?", "Vulkan.md"),
]


@pytest.fixture
def use_settings(settings: Settings) -> Settings:
    return settings.model_copy(
        update={
            "embed_provider": "use-multilingual",
            "embed_model": USE_MODEL,
            "embed_dimension": USE_DIMENSION,
        }
    )


@pytest.mark.parametrize("config", ["dense", "hybrid"])
async def test_a_paraphrase_finds_its_note_by_meaning(
    use_settings: Settings, empty_db: object, vault: Path, config: str
) -> None:
    for path, text in NOTES.items():
        put(vault, path, text)
    async with open_core(use_settings) as core:
        await core.ensure_ready()
        [index] = [s for s in await core.store.index_states() if s.name == "chunk_embedding"]
        assert index.dimension == USE_DIMENSION
        report = await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
        assert report.written == len(NOTES)
        [stats] = await core.store.read(VAULT_STATS, vault="t")
        assert stats["pending_embeddings"] == 0
        for question, note in PARAPHRASES:
            # Precondition: nothing for full text to match.
            assert not set(terms(question)) & set(terms(NOTES[note])), question
            evidence = await retrieve(
                core, "t", question, top_k=4, mode="retrieve", config=PRESETS[config]
            )
            assert evidence.hits[0].path == note, (question, [h.path for h in evidence.hits])
            assert "vector" in evidence.hits[0].retrievers
