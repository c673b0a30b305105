"""What an agent checks an answer by, on the real Neo4j with the fake Ollama: each citation names
its chunk by the id ``get_note`` gives it (and fetches by), each fact its source line, alike over
REST and MCP; an answer that cites none of its evidence still comes with that evidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from knotwork.core import Core
from knotwork.mcp.bounded import UNCITED_EVIDENCE
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import put
from tests.integration.test_answer import Api, api, labels, model  # noqa: F401 (a fixture)
from tests.integration.test_mcp import call, connected, refused, synced_vault

BOB = "# Bob\n\nBob is a gardener.\nBob builds the graph database with [[People/Alice|Alice]].\n"
QUESTION = "Who works with Bob on the graph database?"


@pytest.fixture
async def served(settings: Settings, vault: Path, core: Core) -> Settings:
    put(vault, "People/Bob.md", BOB)
    return await synced_vault(settings, vault, core)


async def test_a_citation_names_the_chunk_get_note_returns(
    served: Settings, fake_ollama: FakeOllama
) -> None:
    fake_ollama.chat_script = model(
        lambda prompt: f"Alice works with Bob {labels(prompt)['People/Alice.md']}."
    )
    async with connected(served) as client:
        body = await call(client, "ask", question=QUESTION, mode="fast")
        [cited] = body["citations"]
        note = await call(client, "get_note", path=cited["path"])
        one = await call(client, "get_note", path=cited["path"], chunk_id=cited["chunk_id"])
        elsewhere = await refused(client, "get_note", path="Garden.md", chunk_id=cited["chunk_id"])
        retrieved = await call(client, "retrieve", question=QUESTION)
        explained = await call(client, "explain", question=QUESTION)
    assert body["uncited"] is False and body["evidence"] == [] and body["evidence_total"] == 0
    assert cited["path"] == "People/Alice.md"
    assert cited["chunk_id"] in [c["id"] for c in note["chunks"]]
    [chunk] = one["chunks"]
    assert chunk["id"] == cited["chunk_id"] and chunk["line_start"] == cited["line_start"]
    assert one["chunks_total"] == note["chunks_total"]
    assert "no chunk" in elsewhere and "'Garden.md'" in elsewhere, elsewhere
    # retrieve and explain name each hit's chunk alike.
    ranked = [c["chunk_id"] for c in retrieved["citations"]]
    assert ranked and ranked == [h["chunk_id"] for h in explained["hits"]]


async def test_facts_carry_their_source_line_alike_over_rest_and_mcp(
    api: Api,  # noqa: F811 (the fixture)
    settings: Settings,
) -> None:
    put(api.vault, "People/Bob.md", BOB)
    assert (await api.client.post("/sync")).status_code == 200
    question = {"question": "Who builds the graph database with Alice?", "top_k": 8}
    rest = (await api.client.post("/retrieve", json=question)).json()
    queried = (await api.client.post("/query", json={**question, "mode": "retrieve"})).json()
    bob = (await api.client.get("/notes/People/Bob.md")).json()
    served = settings.model_copy(update={"vault_path": api.vault, "extract": False})
    async with connected(served) as client:
        tool = await call(client, "retrieve", **question)
    links = [f for f in rest["facts"] if f["source"] == "People/Bob.md"]
    assert links, rest["facts"]
    assert {f["line"] for f in links} == {4}, links  # the line the link is on
    assert {f["chunk_id"] for f in links} <= {c["id"] for c in bob["chunks"]}
    # The note's own facts say the same line, and every citation names its chunk.
    assert 4 in {f["line"] for f in bob["facts"] if f["source"] == "People/Bob.md"}
    assert all(c["chunk_id"] for c in rest["citations"] + queried["citations"])
    assert tool["facts"] == rest["facts"] and tool["citations"] == rest["citations"]
    assert queried["facts"] == rest["facts"]


async def test_an_answer_citing_none_of_its_evidence_comes_with_it(
    served: Settings, vault: Path, core: Core, fake_ollama: FakeOllama
) -> None:
    for n in range(12):
        put(
            vault,
            f"Team/Dev{n}.md",
            f"# Dev {n}\n\nDev {n} works with Bob on the graph database.\n",
        )
    from knotwork.ingest.ingestor import Ingestor
    from knotwork.ingest.sync import sync_vault

    await sync_vault(Ingestor(core, root=vault, extract_enabled=False))
    fake_ollama.chat_script = model(lambda _: "Many people work with Bob on the graph database.")
    async with connected(served) as client:
        body = await call(client, "ask", question=QUESTION, mode="fast", top_k=12)
    assert body["status"] == "ok" and body["citations"] == [], body
    assert any("cites none" in w for w in body["warnings"]), body["warnings"]
    assert body["uncited"] is True
    evidence = body["evidence"]
    assert len(evidence) == UNCITED_EVIDENCE < body["evidence_total"], body["evidence_total"]
    assert all(e["chunk_id"] and e["snippet"] and e["retrievers"] for e in evidence)
    assert any("works with Bob" in e["snippet"] for e in evidence), evidence
