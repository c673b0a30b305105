"""The vector search on the real Neo4j embeds the question without the periods it names
(retrieve/undated.py): "in March 2025" is answered by the temporal side, and must not pull
the search to a note that writes the date out but is about something else."""

from __future__ import annotations

from pathlib import Path

from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import retrieve
from knotwork.retrieve.config import RetrievalConfig
from tests.integration.conftest import put

VECTOR = RetrievalConfig(retrievers=frozenset({"vector"}), ppr=False)


async def test_a_period_in_the_question_does_not_pull_the_vector_search(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    put(vault, "Roof.md", "# Roof\n\nWe chose slate tiles for the roof of the cabin.\n")
    put(vault, "Diary.md", "# Diary\n\nIn March 2025 I decided to plant tomatoes in March 2025.\n")
    await sync_vault(ingestor)
    dated = "What did I decide about the roof in March 2025?"
    evidence = await retrieve(core, "t", dated, top_k=2, config=VECTOR)
    assert [h.path for h in evidence.hits] == ["Roof.md", "Diary.md"]
    # Embedded whole, the dated question ranked the diary first; now it scores as undated.
    plain = await retrieve(core, "t", "What did I decide about the roof?", top_k=2, config=VECTOR)
    assert [h.retrievers["vector"] for h in evidence.hits] == [
        h.retrievers["vector"] for h in plain.hits
    ]
