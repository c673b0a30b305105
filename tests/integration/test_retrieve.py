"""POST /retrieve on the real Neo4j: vector and full-text evidence, fused, never stale."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from time import monotonic

import pytest
from fastapi.testclient import TestClient

from knotwork.api import create_app
from knotwork.core import Core
from knotwork.errors import GraphQueryError
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import retrieve, search
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import Neo4jTarget, put


@pytest.fixture
def client(settings: Settings, vault: Path, empty_db: Neo4jTarget) -> Iterator[TestClient]:
    (vault / "Alice.md").write_text("# Alice\n\nAlice works with Bob on the graph database.\n")
    (vault / "Recipes.md").write_text("# Lasagna\n\nLayers of pasta, tomato and basil.\n")
    app = create_app(settings.model_copy(update={"vault_path": vault, "extract": False}))
    with TestClient(app) as test_client:
        assert test_client.post("/sync").status_code == 200
        yield test_client


def test_both_retrievers_find_the_note_and_cite_lines(client: TestClient) -> None:
    body = client.post(
        "/retrieve", json={"question": "Who works on the graph database?", "top_k": 2}
    ).json()
    assert body["status"] == "ok"
    top = body["citations"][0]
    assert (top["path"], top["heading"], top["line_start"], top["line_end"]) == (
        "Alice.md",
        "Alice",
        1,
        3,
    )
    assert set(top["retrievers"]) - {"ppr", "graph"} == {"vector", "fulltext"}
    assert "Bob" in top["snippet"]


def test_an_edit_removes_old_text_from_the_evidence(client: TestClient, vault: Path) -> None:
    response = client.put(
        "/notes/Alice.md",
        content="# Alice\n\nAlice now paints.\n",
        headers={"Content-Type": "text/markdown"},
    )
    assert response.status_code == 200
    body = client.post("/retrieve", json={"question": "graph database Bob"}).json()
    assert all("Bob" not in c["snippet"] for c in body["citations"])


def test_lucene_syntax_in_questions_is_text(client: TestClient) -> None:
    for question in ['tomato AND "basil', "pasta~ OR (", "a:b/c\\", "* tomato", "basil*"]:
        response = client.post("/retrieve", json={"question": question})
        assert response.status_code == 200, response.text
    # A wildcard alone holds no word to search for: refused as a question, never a 500.
    response = client.post("/retrieve", json={"question": "*"})
    assert response.status_code == 422 and "holds no words" in response.text


def test_full_text_still_answers_when_the_embedder_is_down(
    client: TestClient, fake_ollama: FakeOllama
) -> None:
    fake_ollama.down = True
    body = client.post("/retrieve", json={"question": "lasagna basil"}).json()
    assert body["citations"][0]["path"] == "Recipes.md"
    assert body["warnings"] and "vector retrieval skipped" in body["warnings"][0]
    # Words alone cannot tell a paraphrase from a question the notes do not answer: with the
    # embedder down the gate leaves that to the chat model rather than refusing (here the
    # chat model is down too: it was asked). /retrieve, with no model, still says weak.
    asked = "what would a family cook for a sunday dinner, maybe a lasagna?"
    body = client.post("/retrieve", json={"question": asked}).json()
    assert body["status"] == "insufficient_context" and body["citations"]
    body = client.post("/query", json={"question": asked}).json()
    assert body["status"] == "model_unavailable" and body["citations"], body


@pytest.mark.parametrize(
    "payload",
    [
        {"question": ""},
        {"question": "x" * 2001},
        {"question": "ok", "top_k": 0},
        {"question": "ok", "top_k": 51},
    ],
)
def test_bounds_are_422(client: TestClient, payload: dict[str, object]) -> None:
    assert client.post("/retrieve", json=payload).status_code == 422


async def test_a_second_vault_does_not_crowd_out_the_vault_asked(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    # The indexes answer across every vault. A second vault whose chunks sit nearer the
    # question than anything in the first used to fill the candidate page on its own.
    put(vault, "Alice.md", "# Alice\n\nAlice tends the graph database garden.\n")
    put(vault, "Bob.md", "# Bob\n\nBob keeps bees beside the database.\n")
    put(vault, "Carol.md", "# Carol\n\nCarol paints harbours.\n")
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
    question = "Who tends the graph database garden?"

    async def seeds() -> tuple[list[str], list[str]]:
        qvec = list(await core.embedder.aget_query_embedding(question))
        near = await search.vector(core.store, "t", qvec, 8)
        text = await search.fulltext(core.store, "t", question, 8)
        return [c for c, _ in near], [c for c, _ in text]

    alone = await seeds()
    assert alone[0] and alone[1]
    other = tmp_path / "other"
    for i in range(150):
        put(
            other,
            f"Copy {i}.md",
            f"# Copy {i}\n\n{question} Alice tends the graph database garden.\n",
        )
    await sync_vault(Ingestor(core, root=other, vault="other", extract_enabled=False))
    crowded = await seeds()
    assert crowded[0] == alone[0]  # cosines do not depend on other vaults
    # BM25 weighs terms by the whole index, so scores move; the vault's own matches remain.
    assert set(crowded[1]) == set(alone[1])
    evidence = await retrieve(core, "t", question, top_k=3)
    assert evidence.hits and evidence.hits[0].path == "Alice.md"


async def test_a_search_neo4j_refuses_costs_that_search_not_the_question(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A query Neo4j refuses in one retriever (here full text) leaves the others' evidence and
    says which was skipped; Neo4j itself away still fails the question (tested elsewhere)."""
    (vault / "Alice.md").write_text("# Alice\n\nAlice works with Bob on the graph database.\n")
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await sync_vault(ingestor)

    async def refused(*args: object, **kwargs: object) -> object:
        raise GraphQueryError("analyzer failed", "Neo.ClientError.Procedure.ProcedureCallFailed")

    monkeypatch.setattr(search, "fulltext", refused)
    evidence = await retrieve(core, "t", "Who works with Bob?")
    assert [h.path for h in evidence.hits][:1] == ["Alice.md"]
    assert any(w.startswith("fulltext retrieval skipped") for w in evidence.warnings)


@pytest.mark.parametrize(("query", "name"), [("fulltext", "fulltext"), ("named_notes", "names")])
async def test_a_search_past_the_read_timeout_costs_that_search_not_the_question(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch, query: str, name: str
) -> None:
    """Neo4j stops a read that runs past KNOTWORK_NEO4J_QUERY_TIMEOUT_S (here 3 s: the other
    searches must finish within it on a busy machine too): the search it ran in is skipped with
    a warning saying why, the others answer, and nothing waits for the runaway query to end on
    its own."""
    (vault / "Alice.md").write_text("# Alice\n\nAlice works with Bob on the graph database.\n")
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
    timed = dataclasses.replace(
        core, settings=core.settings.model_copy(update={"neo4j_query_timeout_s": 3.0})
    )
    runaway = "UNWIND range(1, 100000000000) AS x WITH x WHERE x % 7 = 0 RETURN count(x) AS n"

    async def endless(*args: object, **kwargs: object) -> object:
        return await core.store._run(runaway, {}, write=False)

    monkeypatch.setattr(search, query, endless)
    started = monotonic()
    evidence = await retrieve(timed, "t", "Who works with Bob?")
    assert monotonic() - started < 20
    assert [h.path for h in evidence.hits][:1] == ["Alice.md"]
    assert f"{name} retrieval skipped: it ran past KNOTWORK_NEO4J_QUERY_TIMEOUT_S" in (
        evidence.warnings
    )
