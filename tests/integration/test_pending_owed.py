"""What the pending chunks owe, step by step, as the graph counts it for the background passes'
log (ingest/owed.py): a watcher's writes embed their chunks, so what follows owes extractions
alone; a chunk written while the embedding model is down owes both."""

from __future__ import annotations

from pathlib import Path

from knotwork.core import Core
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
    assert await owed(ingestor.models) == Owed(embeddings=1, extractions=4)
    ingestor.models.extract_enabled = False  # extraction off: only the embeddings are owed
    assert await owed(ingestor.models) == Owed(embeddings=1)
