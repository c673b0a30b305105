"""What the pending chunks owe, step by step, as the graph counts it for the background passes'
log (ingest/owed.py): a watcher's writes embed their chunks, so what follows owes extractions
alone; a chunk written while the embedding model is down owes both."""

from __future__ import annotations

from pathlib import Path

from knotwork.core import Core
from knotwork.ingest import waiting
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.owed import Owed, owed
from knotwork.ingest.sync import sync_vault
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import put


async def test_the_steps_owed_are_counted_apart(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    ingestor = Ingestor(core, root=vault, vault="o", extract_enabled=True)
    ingestor.extract_inline = False  # as the watcher writes: extraction left to the passes
    for name in ("Ann", "Ben", "Cai"):
        put(vault, f"{name}.md", f"# {name}\n\n{name} works with Dee.\n")
    await sync_vault(ingestor)
    assert await owed(ingestor.models) == Owed(embeddings=0, extractions=3)
    fake_ollama.down = True
    put(vault, "Dee.md", "# Dee\n\nDee works with Ann.\n")
    await sync_vault(ingestor)
    both = await owed(ingestor.models)
    assert both == Owed(embeddings=1, extractions=4)
    assert both.chunks == 4  # Dee's chunk owes both: one chunk for a retry to do
    # The line that says a model's trouble reads the same counts, by note.
    found = await waiting.read(core.store, "o", "extraction", held={"new": "Eve.md"})
    assert str(found) == "5 chunks of 5 notes (Eve.md, Ann.md, Ben.md and 2 more)"
    ingestor.models.extract_enabled = False  # extraction off: only the embeddings are owed
    assert await owed(ingestor.models) == Owed(embeddings=1)
    assert (await owed(ingestor.models)).chunks == 1
