"""Ingest against models that fail or answer garbage: the notes land, the work waits, and
one model's trouble never holds back the other's."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from tests.fakes.ollama import ChatRefusal, FakeOllama
from tests.integration.conftest import ad_hoc, put


def _overloaded(body: dict[str, Any]) -> str:
    raise ChatRefusal(503, "server overloaded")


async def test_a_chat_model_down_leaves_the_next_notes_embedded(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """The chat model failing an extraction backs off extraction only: the notes written
    meanwhile are still embedded (the embedding model answers, often on another server), not
    left out of vector search until a retry."""
    fake_ollama.chat_script = _overloaded
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=True)
    put(vault, "A.md", "# A\n\nThe first note.\n")
    first = await ingestor.upsert_path("A.md")
    assert first.embedded == 1 and any("extraction postponed" in w for w in first.warnings)
    put(vault, "B.md", "# B\n\nThe second note.\n")
    second = await ingestor.upsert_path("B.md")
    assert second.embedded == 1, second.warnings
    assert not any("embedding model unavailable" in w for w in second.warnings)
    states = await ad_hoc(
        core,
        "MATCH (:Note {vault: 't'})-[:HAS_CHUNK]->(c) "
        "RETURN c.embedding_state AS embedding, c.extraction_state AS extraction",
        {},
        write=False,
    )
    assert states == [{"embedding": "done", "extraction": "pending"}] * 2


async def test_the_periodic_retry_embeds_while_the_chat_model_is_let_be(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """The watcher's retry every 30 s did nothing while either model was in its back-off: the
    chat model failing kept the chunks an embedding outage left pending out of vector search."""
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=True)
    fake_ollama.down = True  # both models away while the note is written
    put(vault, "A.md", "# A\n\nThe first note.\n")
    assert (await ingestor.upsert_path("A.md")).embedded == 0
    fake_ollama.down = False
    fake_ollama.chat_script = _overloaded  # the chat model still fails, and is let be
    core.chat_down_until["t"] = time.monotonic() + 30
    ingestor.models.trouble.down_until = 0.0  # the embedding model's back-off is over
    embedded, extracted = await ingestor.retry_pending(ask_again=False)
    assert (embedded, extracted) == (1, 0)
