"""``KNOTWORK_LLM_PROVIDER=openai-like`` end to end, against the real Neo4j and the loopback
OpenAI-compatible server (embeddings stay on the fake Ollama): extraction, keywords, answers
(plain and streamed), a server that is down, and ``/health`` and ``doctor``."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from typer.testing import CliRunner

import knotwork.api.routes.health as health_route
from knotwork.api import create_app
from knotwork.check.verify import snapshot
from knotwork.cli import app as cli
from knotwork.core import Core, open_core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.llm.vectors import PROBE_TEXT
from knotwork.retrieve import retrieve
from knotwork.settings import Settings, get_settings
from tests.fakes.ollama import FakeOllama, schema_instance, structured_schema
from tests.fakes.openai_like import FakeOpenAILike
from tests.integration.conftest import Neo4jTarget, ad_hoc, put
from tests.integration.test_answer import labels, parse_sse, prompt_of

KEY = "o" * 24
CHAT = "/v1/chat/completions"
ANN = {
    "entities": [{"name": "Ann", "type": "person"}, {"name": "Ben", "type": "person"}],
    "triples": [{"subject": "Ann", "predicate": "works with", "object": "Ben"}],
}


def model(body: dict[str, Any]) -> str:
    """The server's model: extraction and keywords by schema, answers citing Alice's note."""
    schema = structured_schema(body)
    prompt = prompt_of(body)
    if schema is not None and "keywords" in json.dumps(schema):
        return json.dumps({"keywords": ["Robert"]})
    if schema is not None:
        return json.dumps(ANN) if "Ann works" in prompt else json.dumps(schema_instance(schema))
    return f"Alice works with Bob {labels(prompt)['People/Alice.md']} on the graph database."


@pytest.fixture
def openai_settings(settings: Settings, fake_openai: FakeOpenAILike) -> Settings:
    fake_openai.chat_script = model
    return settings.model_copy(
        update={"llm_provider": "openai-like", "llm_base_url": fake_openai.base_url}
    )


@pytest.fixture
async def openai_core(empty_db: Neo4jTarget, openai_settings: Settings) -> AsyncIterator[Core]:
    async with open_core(openai_settings) as opened:
        await opened.ensure_ready()
        yield opened


async def test_extraction_goes_to_the_openai_like_server_with_a_json_schema(
    openai_core: Core, vault: Path, fake_openai: FakeOpenAILike, fake_ollama: FakeOllama
) -> None:
    put(vault, "Ann.md", "# Ann\n\nAnn works with [[Ben]].\n")
    put(vault, "G.md", "She lives in [[Rome]].\n")

    def answer(body: dict[str, Any]) -> str:  # the model's own probe answered: garbage for G
        if "Ann works" in prompt_of(body) or PROBE_TEXT in prompt_of(body):
            return json.dumps(ANN)
        return '{"entities": [{"name": "Gi'

    fake_openai.chat_script = answer
    report = await sync_vault(Ingestor(openai_core, root=vault, vault="t", extract_enabled=True))
    chats = fake_openai.calls_to(CHAT)
    assert len(chats) == 4, "Ann's chunk once, Gina's partial answer retried once, the probe"
    assert all(c.body["response_format"]["type"] == "json_schema" for c in chats)
    assert not fake_ollama.calls_to("/api/chat"), "the chat model is not asked through Ollama"
    assert any("G.md: extraction failed" in w and "not JSON" in w for w in report.warnings)
    snap = await snapshot(openai_core.store, "t")
    assert any("|WORKS_WITH|entity:ann|entity:ben|llm|" in f for f in snap["facts"])
    assert any("|LOCATED_IN|note:G.md|unresolved:rome|" in f for f in snap["facts"])
    rows = await ad_hoc(
        openai_core,
        "MATCH (c:Chunk {vault: 't', note_path: 'G.md'}) "
        "RETURN c.extraction_state AS s, c.extraction_error AS e",
        {},
        write=False,
    )
    assert rows[0]["s"] == "error" and "not JSON" in rows[0]["e"]


async def test_a_server_that_is_down_leaves_extraction_pending_for_retry(
    openai_core: Core, vault: Path, fake_openai: FakeOpenAILike
) -> None:
    put(vault, "Ann.md", "# Ann\n\nAnn works with [[Ben]].\n")
    ingestor = Ingestor(openai_core, root=vault, vault="t", extract_enabled=True)
    fake_openai.down = True
    report = await sync_vault(ingestor)
    assert any("extraction postponed" in w for w in report.warnings)
    fake_openai.down = False
    assert (await ingestor.retry_pending())[1] == 1
    assert any(
        "|entity:ann|entity:ben|llm|" in f
        for f in (await snapshot(openai_core.store, "t"))["facts"]
    )


async def test_keywords_come_from_the_openai_like_server_in_normal_mode(
    openai_core: Core, vault: Path, fake_openai: FakeOpenAILike
) -> None:
    put(vault, "Bob.md", "# Bob\n\nRobert maintains the cluster.\n")
    await sync_vault(Ingestor(openai_core, root=vault, vault="t", extract_enabled=False))
    fake_openai.calls.clear()
    fast = await retrieve(openai_core, "t", "Who keeps the servers running?", mode="fast")
    assert fast.keywords == [] and not fake_openai.calls_to(CHAT)
    normal = await retrieve(openai_core, "t", "Who keeps the servers running?", mode="normal")
    assert normal.keywords == ["Robert"] and len(fake_openai.calls_to(CHAT)) == 1


@pytest.fixture
async def client(
    openai_settings: Settings, vault: Path, empty_db: Neo4jTarget
) -> AsyncIterator[httpx.AsyncClient]:
    put(vault, "People/Alice.md", "# Alice\n\nAlice works with Bob on the graph database.\n")
    put(vault, "Recipes.md", "# Lasagna\n\nLayers of pasta, tomato sauce and basil.\n")
    app = create_app(
        openai_settings.model_copy(
            update={"vault_path": vault, "extract": False, "api_key": SecretStr(KEY)}
        )
    )
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://knotwork.test",
            headers={"X-API-Key": KEY},
        ) as http,
    ):
        assert (await http.post("/sync")).status_code == 200
        yield http


async def test_answers_plain_and_streamed_through_the_openai_like_server(
    client: httpx.AsyncClient, fake_openai: FakeOpenAILike
) -> None:
    question = "Who works with Bob on the graph database?"
    expected = "Alice works with Bob [People/Alice.md#Alice] on the graph database."
    body = (await client.post("/query", json={"question": question})).json()
    assert body["status"] == "ok" and body["answer"] == expected
    assert body["citations"][0]["path"] == "People/Alice.md"
    async with client.stream("POST", "/query", json={"question": question, "stream": True}) as r:
        assert r.status_code == 200
        events = parse_sse("".join([chunk async for chunk in r.aiter_text()]))
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "evidence" and kinds[-1] == "done" and kinds.count("token") >= 2
    assert "".join(d["text"] for k, d in events if k == "token") == events[-1][1]["answer"]
    assert events[-1][1]["answer"] == expected
    streamed = [c.body for c in fake_openai.calls_to(CHAT) if c.body.get("stream")]
    assert streamed and "response_format" not in streamed[-1]


async def test_a_server_that_is_down_still_returns_the_evidence_and_names_it(
    client: httpx.AsyncClient, fake_openai: FakeOpenAILike
) -> None:
    fake_openai.down = True
    body = (await client.post("/query", json={"question": "Who works with Bob?"})).json()
    assert body["status"] == "model_unavailable" and body["citations"]
    assert any(f"OpenAI-compatible server at {fake_openai.base_url}" in w for w in body["warnings"])


def test_health_probes_the_openai_like_server(
    openai_settings: Settings,
    empty_db: Neo4jTarget,
    fake_openai: FakeOpenAILike,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fastapi.testclient import TestClient

    monkeypatch.setattr(health_route, "REPORT_TTL_S", 0.0)  # each /health checks afresh

    with TestClient(create_app(openai_settings)) as http:
        body = http.get("/health").json()
        assert body["ok"] is True and body["capabilities"]["answers"]["ready"]
        assert body["llm_server"]["served"] == ["llama3.1:8b"]
        assert [m["role"] for m in body["ollama"]["models"]] == ["embedding"]
        fake_openai.down = True
        down = http.get("/health")
        fake_openai.down = False
        fake_openai.models = ["qwen2.5:7b"]
        unlisted = http.get("/health").json()
    assert down.status_code == 503
    answers = down.json()["capabilities"]["answers"]
    assert "OpenAI-compatible server is not reachable" in answers["reason"]
    assert "KNOTWORK_LLM_BASE_URL" in answers["fix"]
    assert down.json()["capabilities"]["search"]["ready"]
    assert "qwen2.5:7b" in unlisted["capabilities"]["extraction"]["fix"]


def test_doctor_names_the_openai_like_server(
    env: None, monkeypatch: pytest.MonkeyPatch, fake_openai: FakeOpenAILike
) -> None:
    monkeypatch.setenv("KNOTWORK_LLM_PROVIDER", "openai-like")
    monkeypatch.setenv("KNOTWORK_LLM_BASE_URL", fake_openai.base_url)
    get_settings.cache_clear()
    runner = CliRunner()
    assert runner.invoke(cli, ["init"]).exit_code == 0
    result = runner.invoke(cli, ["doctor"])
    assert result.exit_code == 0, result.output
    assert f"ok  OpenAI-compatible server reachable at {fake_openai.base_url}" in result.output
    assert "ok  llm model llama3.1:8b" in result.output
    assert "ollama pull llama3.1:8b" not in result.output, "Ollama need not serve the chat model"
    fake_openai.down = True
    result = runner.invoke(cli, ["doctor"])
    assert result.exit_code == 1
    assert "FAIL answers: the OpenAI-compatible server is not reachable" in result.output
    monkeypatch.delenv("KNOTWORK_LLM_BASE_URL")
    get_settings.cache_clear()
    result = runner.invoke(cli, ["doctor"])
    assert result.exit_code == 2 and "KNOTWORK_LLM_BASE_URL" in result.output
