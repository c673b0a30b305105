"""Progress notifications of the long MCP tools, on the real Neo4j with the fake Ollama: a
client that sends a progress token hears what ``ask`` and ``sync`` are doing, and hears it again
while a slow model thinks, so its request timeout does not end a call that is still working."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from knotwork.core import Core
from knotwork.mcp import progress as mcp_progress
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import put
from tests.integration.test_answer import labels, model
from tests.integration.test_mcp import connected, synced_vault, text_of


class _Heard:
    """The progress notifications one call sent, in order."""

    def __init__(self) -> None:
        self.notes: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.notes.append((progress, total, message))

    @property
    def messages(self) -> list[str]:
        return [m or "" for _, _, m in self.notes]

    def grows(self) -> bool:
        """The spec's rule: ``progress`` increases with each notification."""
        values = [p for p, _, _ in self.notes]
        return all(a < b for a, b in itertools.pairwise(values))


async def _call(client: Client, tool: str, heard: _Heard, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments, progress_callback=heard)
    assert not result.is_error, text_of(result)
    body: dict[str, Any] = result.structured_content or {}
    return body


@pytest.fixture
async def served(settings: Settings, vault: Path, core: Core) -> Settings:
    return await synced_vault(settings, vault, core)


async def test_ask_reports_its_stages_and_a_heartbeat_while_the_model_thinks(
    served: Settings, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mcp_progress, "HEARTBEAT_S", 0.1)
    monkeypatch.setattr(mcp_progress, "POLL_S", 0.02)
    fake_ollama.chat_script = model(
        lambda prompt: f"Alice works with Bob {labels(prompt)['People/Alice.md']}."
    )
    fake_ollama.thinking, fake_ollama.stream_gap_s = 6, 0.15  # a second before the first word
    heard = _Heard()
    async with connected(served) as client:
        body = await _call(
            client, "ask", heard, question="Who works with Bob on the graph database?", mode="fast"
        )
    assert body["status"] == "ok" and body["citations"], body
    said = heard.messages
    assert "retrieving evidence" in said, said
    assert any(m.startswith("answering from ") and "chunk" in m for m in said), said
    assert any(m.startswith("answering: ") and "characters written" in m for m in said), said
    # The model wrote nothing for about a second: the last stage was said again meanwhile.
    before_words = said[: next(i for i, m in enumerate(said) if m.startswith("answering: "))]
    assert before_words.count(before_words[-1]) >= 3, said
    assert heard.grows(), heard.notes


async def test_ask_without_a_progress_token_answers_alike(
    served: Settings, fake_ollama: FakeOllama
) -> None:
    async with connected(served) as client:
        result = await client.call_tool("ask", {"question": "Who is Alice?", "mode": "retrieve"})
    assert not result.is_error and result.structured_content, text_of(result)
    assert result.structured_content["status"] == "ok"


async def test_sync_reports_the_notes_it_writes_done_of_total(
    served: Settings, vault: Path
) -> None:
    for n in range(5):
        put(vault, f"Birds/Bird{n}.md", f"# Bird {n}\n\nBird {n} nests by the quarry.\n")
    heard = _Heard()
    async with connected(served, allow_writes=True) as client:
        body = await _call(client, "sync", heard)
    assert body["errors"] == [], body
    said = heard.messages
    assert said and heard.grows(), heard.notes
    written = [m for m in said if m.startswith("writing notes: ")]
    assert written, said
    # "writing notes: 5 of 5: Birds/Bird4.md": the notes done of the notes to write.
    assert all(re.match(r"writing notes: [0-5] of 5: Birds/Bird\d\.md$", m) for m in written)


async def test_sync_sends_the_notes_written_and_their_total_as_numbers(
    served: Settings, vault: Path
) -> None:
    """A client's bar reads ``progress`` of ``total``: a sync sent neither as the notes it
    wrote, only a count of its notifications and no total, though it knew how many it had."""
    for n in range(5):
        put(vault, f"Birds/Bird{n}.md", f"# Bird {n}\n\nBird {n} nests by the quarry.\n")
    heard = _Heard()
    async with connected(served, allow_writes=True) as client:
        body = await _call(client, "sync", heard)
    assert body["errors"] == [], body
    assert heard.grows(), heard.notes
    sized = [(p, t, m or "") for p, t, m in heard.notes if t is not None]
    assert sized and all(t == 5 and p <= t for p, t, _ in sized), heard.notes
    for progress, _, message in sized:
        if found := re.match(r"writing notes: (\d) of 5", message):
            # The notes written, short of the total until the call ends (what follows the
            # last note still grows it), give or take the nudges that keep it growing.
            assert abs(progress - min(int(found[1]), 4.5)) < 0.01, heard.notes
    assert heard.notes[-1][:2] == (5, 5), heard.notes  # the end: all of it done
