"""The MCP note tools' results stay bounded for a note of thousands of links and tags: the
write tools list at most 50 fact keys with their totals, ``get_note`` pages its chunks and
facts, ``note_history`` cuts each revision's facts and ``search_notes`` a row's tags — on the
real Neo4j with the fake Ollama. Without the bounds each of these results ran to hundreds of
kilobytes (``get_note`` to megabytes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from knotwork.core import Core
from knotwork.mcp.bounded import CHUNKS_PAGE, FACT_KEYS, FACTS_PAGE, NAMES
from knotwork.settings import Settings
from knotwork.text.quoted import TEXT_CHARS
from tests.fakes.ollama import FakeOllama
from tests.integration.test_answer import labels, model
from tests.integration.test_mcp import call, connected, refused, synced_vault

LINES = 1500  # each line a link, and a tag while the tags stay under a note's cap
TAGS = 900  # MAX_NOTE_TAGS is 1,000 (ingest/caps.py)
BIG = "# Links\n\n" + "".join(f"- [[Target {i}]] and #tag{i % TAGS}\n" for i in range(LINES))


def size(body: dict[str, Any]) -> int:
    return len(json.dumps(body))


async def test_a_note_of_thousands_of_facts_comes_back_bounded(
    settings: Settings, vault: Path, core: Core
) -> None:
    served = await synced_vault(settings, vault, core)
    async with connected(served, allow_writes=True) as client:
        written = await call(client, "upsert_note", path="Links.md", content=BIG)
        note = await call(client, "get_note", path="Links.md")
        history = await call(client, "note_history", path="Links.md", limit=1)
        found = await call(client, "search_notes", text="Links")
        deleted = await call(client, "delete_note", path="Links.md")
    outcome = written["outcome"]
    facts = outcome["added_total"]
    assert facts >= LINES + TAGS and len(outcome["added"]) == FACT_KEYS
    assert outcome["removed"] == [] and outcome["removed_total"] == 0
    assert size(written) < 10_000, size(written)

    assert note["facts_total"] == facts and len(note["facts"]) == FACTS_PAGE
    assert note["chunks_total"] > CHUNKS_PAGE and len(note["chunks"]) == CHUNKS_PAGE
    assert note["note"]["tags_total"] == TAGS and len(note["note"]["tags"]) == NAMES
    assert all(c["text_chars"] == len(c["text"]) for c in note["chunks"])  # none cut here
    assert size(note) < 60_000, size(note)

    [revision] = history["revisions"]
    assert revision["added_total"] == facts and len(revision["added"]) == FACT_KEYS
    assert revision["added"] == outcome["added"]
    assert size(history) < 10_000, size(history)

    [row] = found["notes"]
    assert row["path"] == "Links.md" and row["chunks"] == note["chunks_total"]
    assert row["tags_total"] == TAGS and len(row["tags"]) == NAMES
    assert row["aliases"] == [] and row["aliases_total"] == 0
    assert size(found) < 5_000, size(found)

    removed = deleted["outcome"]
    assert removed["removed_total"] == facts and len(removed["removed"]) == FACT_KEYS
    assert size(deleted) < 10_000, size(deleted)


async def test_get_note_pages_through_every_chunk_and_fact(
    settings: Settings, vault: Path, core: Core
) -> None:
    served = await synced_vault(settings, vault, core)
    async with connected(served, allow_writes=True) as client:
        await call(client, "upsert_note", path="Links.md", content=BIG)
        first = await call(client, "get_note", path="Links.md", fact_limit=200, chunk_limit=100)
        total_facts, total_chunks = first["facts_total"], first["chunks_total"]
        facts, chunks = list(first["facts"]), list(first["chunks"])
        while len(facts) < total_facts:
            page = await call(
                client, "get_note", path="Links.md", fact_offset=len(facts), fact_limit=200
            )
            assert page["facts"], len(facts)
            facts += page["facts"]
        while len(chunks) < total_chunks:
            page = await call(
                client, "get_note", path="Links.md", chunk_offset=len(chunks), chunk_limit=100
            )
            chunks += page["chunks"]
        past = await call(client, "get_note", path="Links.md", chunk_offset=10_000)
        too_many = await refused(client, "get_note", path="Links.md", fact_limit=201)
        negative = await refused(client, "get_note", path="Links.md", chunk_offset=-1)
    assert len(first["facts"]) == 200 and len(facts) == total_facts
    assert [c["ord"] for c in chunks] == list(range(total_chunks))
    assert f"- [[Target {LINES - 1}]] and #tag{(LINES - 1) % TAGS}" in chunks[-1]["text"]
    assert past["chunks"] == [] and past["chunks_total"] == total_chunks
    assert too_many.startswith("invalid arguments: fact_limit: "), too_many
    assert negative.startswith("invalid arguments: chunk_offset: "), negative


HEAD = "Quokka " * 8000  # a 56,000-character heading
LONG = (
    f"---\naliases: [{'Numbat ' * 300}]\n---\n# {HEAD}\n\n"
    f"quokka wombat numbat live in the outback.\n\n## {HEAD}2\n\nMore quokka text.\n"
)
QUESTION = "quokka wombat numbat outback"


async def test_a_note_of_huge_headings_and_values_comes_back_bounded(
    settings: Settings, vault: Path, core: Core, fake_ollama: FakeOllama
) -> None:
    """Every hit quoted the whole heading (112,003 characters in ``retrieve``'s citations,
    twice in ``explain``'s and in ``get_note``'s heading paths): megabytes, past an MCP
    client's 1 MiB event. Each is cut at TEXT_CHARS, paths whole, the answer's marker cut alike
    so it still matches its citation by exact text."""
    served = await synced_vault(settings, vault, core)
    fake_ollama.chat_script = model(
        lambda prompt: f"Quokkas live in the outback {labels(prompt)['Scratch/long.md']}."
    )
    async with connected(served, allow_writes=True) as client:
        await call(client, "upsert_note", path="Scratch/long.md", content=LONG)
        retrieved = await call(client, "retrieve", question=QUESTION, top_k=8)
        explained = await call(client, "explain", question=QUESTION, top_k=8)
        asked = await call(client, "ask", question=QUESTION, top_k=8)
        note = await call(client, "get_note", path="Scratch/long.md")
        found = await call(client, "search_notes", text="long")
    mine = [c for c in retrieved["citations"] if c["path"] == "Scratch/long.md"]
    assert mine and all(len(c["heading"]) <= TEXT_CHARS for c in mine), mine
    assert any(c["heading"][:-12].endswith("… sha256:") for c in mine), mine  # its hash after
    assert size(retrieved) < 40_000 and size(asked) < 40_000, (size(retrieved), size(asked))
    hits = [h for h in explained["hits"] if h["path"] == "Scratch/long.md"]
    assert hits and all(len(h["citation"]) < TEXT_CHARS + 100 for h in hits), hits
    assert size(explained) < 60_000, size(explained)
    cited = {f"[{c['path']}#{c['heading']}]" for c in asked["citations"]}
    assert cited and all(marker in (asked["answer"] or "") for marker in cited), asked["answer"][
        :500
    ]
    assert all(len(c["heading_path"]) <= TEXT_CHARS for c in note["chunks"])
    [alias] = note["note"]["aliases"]  # 2,100 characters in the note
    assert len(alias) == TEXT_CHARS and alias.endswith("…"), alias
    assert size(note) < 60_000, size(note)  # its chunks' text: 2,000 characters each
    [row] = found["notes"]
    assert len(row["title"]) <= TEXT_CHARS and size(found) < 5_000, size(found)
