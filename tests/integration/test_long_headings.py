"""Long headings that start alike, on the real Neo4j with the fake Ollama, over REST and MCP: a
note whose sibling sections share their first 300 characters, one of them with a subsection
(its heading path starts with the section's). Cut to the same text, their citations could not
be told apart; the answer's markers, rewritten by a heading's start, cited nothing; and the
streamed tokens (the MCP progress counts them) carried the whole headings while the final
answer cut them. Each marker must be found once in the answer, by exact text, from the body's
citations alone (the README's rule), and the stream must add up to that answer."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from knotwork.answer.cite_match import markers
from knotwork.core import Core
from knotwork.settings import Settings
from knotwork.text.quoted import TEXT_CHARS
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import put
from tests.integration.test_answer import Api, api, ask, model, sse_query  # noqa: F401 (a fixture)
from tests.integration.test_mcp import call, connected, synced_vault, text_of

NOTE = "Scratch/long.md"
START = "Quokka " * 60  # 420 characters: the headings below share their first 300
LONG = (
    f"# {START}one\n\nquokka wombat numbat live in the outback.\n\n"
    f"# {START}two\n\nquokka wombat numbat dig in the outback.\n\n"
    f"## Burrows\n\nquokka wombat numbat burrows in the outback run deep.\n"
)
QUESTION = "quokka wombat numbat outback"
_BLOCK = re.compile(
    r"<<<BEGIN [0-9a-f]{16} (\[S\d+\]) note " + re.escape(NOTE) + r", section (.*), lines"
)


def _cite_every_section(prompt: str) -> str:
    """Each block of the note, a section before its subsection: the order in which rewriting
    a heading's start also rewrote the subsection's marker."""
    cited = sorted(_BLOCK.findall(prompt), key=lambda block: len(block[1]))
    return "Quokkas live in the outback " + " ".join(number for number, _ in cited) + "."


def _checked(body: dict[str, Any]) -> None:
    """The note's three sections cited apart, each marker once in the answer, all cut."""
    mine = [c for c in body["citations"] if c["path"] == NOTE]
    assert len(mine) == 3 and len({c["heading"] for c in mine}) == 3, mine
    assert all(len(c["heading"]) <= TEXT_CHARS for c in mine), mine
    answer = body["answer"] or ""
    found = markers([SimpleNamespace(**c) for c in body["citations"]])
    assert all(answer.count(m) == 1 for m in found), (found, answer)
    assert len(answer) < 2_000, len(answer)  # whole: 1,300 characters of headings more


async def test_rest_cites_sections_apart_streamed_or_not(
    api: Api,  # noqa: F811 (the fixture)
    fake_ollama: FakeOllama,
) -> None:
    put(api.vault, NOTE, LONG)
    assert (await api.client.post("/sync")).status_code == 200
    fake_ollama.chat_script = model(_cite_every_section)
    retrieved = (await api.client.post("/retrieve", json={"question": QUESTION})).json()
    whole = {c["heading"] for c in retrieved["citations"] if c["path"] == NOTE}
    assert len(whole) == 3, whole
    body = await ask(api, question=QUESTION)
    assert body["status"] == "ok", body
    _checked(body)
    events = await sse_query(api, json={"question": QUESTION, "stream": True})
    done = events[-1][1]
    tokens = [data["text"] for kind, data in events if kind == "token"]
    assert done["answer"] == body["answer"]
    assert "".join(tokens) == done["answer"], tokens
    assert {c["heading"] for c in events[0][1]["citations"] if c["path"] == NOTE} == whole


async def test_mcp_cites_sections_apart_and_counts_the_cut_answer(
    settings: Settings, vault: Path, core: Core, fake_ollama: FakeOllama
) -> None:
    put(vault, NOTE, LONG)
    served = await synced_vault(settings, vault, core)
    fake_ollama.chat_script = model(_cite_every_section)
    heard: list[str] = []

    async def progress(_done: float, _total: float | None, message: str | None) -> None:
        heard.append(message or "")

    async with connected(served) as client:
        result = await client.call_tool("ask", {"question": QUESTION}, progress_callback=progress)
        assert not result.is_error, text_of(result)
        asked: dict[str, Any] = result.structured_content or {}
        explained = await call(client, "explain", question=QUESTION)
        note = await call(client, "get_note", path=NOTE)
    assert asked["status"] == "ok", asked
    _checked(asked)
    written = [m for m in heard if m.startswith("answering: ")]
    assert written[-1] == f"answering: {len(asked['answer'])} characters written", written
    hits = [h for h in explained["hits"] if h["path"] == NOTE]
    assert len({h["citation"] for h in hits}) == 3, hits
    # A citation's cut heading finds its chunk in get_note, cut alike.
    sections = {c["heading_path"] for c in note["chunks"]}
    assert {c["heading"] for c in asked["citations"] if c["path"] == NOTE} == sections
    assert not any(a.startswith(b) for a, b in itertools.permutations(sections, 2)), sections
