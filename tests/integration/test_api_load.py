"""Outages and bursts: with Neo4j gone every route answers 503 within two seconds (and again
200 once it is back), and a burst of 200 concurrent retrievals never gets a 500 — each one is
answered, or told with 503 and Retry-After to come back."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

import knotwork.api.routes.health as health_route
from knotwork.api import create_app
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.limits import WorkLimiter
from knotwork.settings import Settings
from tests.integration.conftest import Neo4jTarget
from tests.integration.server import TcpProxy, free_port, serving
from tests.unit.test_api_routes import served_while_loading

ALICE = "# Alice\n\nAlice works with Bob on the graph database.\n"


def test_with_neo4j_down_every_route_fails_fast(
    settings: Settings,
    vault: Path,
    empty_db: Neo4jTarget,
    proxy: TcpProxy,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(health_route, "REPORT_TTL_S", 0.0)  # each /health checks afresh
    (vault / "Alice.md").write_text(ALICE)
    through = settings.model_copy(
        update={"neo4j_uri": f"bolt://127.0.0.1:{proxy.port}", "vault_path": vault}
    )
    with TestClient(create_app(through)) as client:
        assert client.post("/sync").status_code == 200
        assert client.get("/health").status_code == 200
        proxy.cut()
        calls = {
            "health": lambda: client.get("/health"),
            "stats": lambda: client.get("/stats"),
            "note": lambda: client.get("/notes/Alice.md"),
            "retrieve": lambda: client.post("/retrieve", json={"question": "Who is Alice?"}),
            "query": lambda: client.post("/query", json={"question": "Alice?", "mode": "fast"}),
        }
        for name, call in calls.items():
            for _ in range(2):  # the first call finds the pooled connections dead, the next none
                started = time.monotonic()
                response = call()
                took = time.monotonic() - started
                assert response.status_code == 503, (name, response.text)
                assert took <= 2.0, (name, took)
            assert response.headers["Retry-After"] == "1"
            if name != "health":
                assert "not reachable" in response.json()["detail"]
        proxy.restore()
        assert client.get("/stats").status_code == 200
        assert client.get("/health").status_code == 200


async def test_a_question_while_the_models_load_leaves_the_server_answering(
    settings: Settings, vault: Path, ingestor: Ingestor, core: Core
) -> None:
    """A fresh core's first question builds the chat client (its keywords), which imports
    LlamaIndex under the lock the background model load holds for seconds: in a thread, so
    /health and every other request are answered meanwhile."""
    (vault / "Alice.md").write_text(ALICE)
    await sync_vault(ingestor)
    assert core.models._llm.built is None  # the chat client is not built yet
    app = create_app(settings.model_copy(update={"vault_path": vault}))
    app.state.core, app.state.writers = core, None
    app.state.limiter = WorkLimiter(settings.api_max_concurrent, settings.api_max_waiting)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        question = {"question": "Who does Alice work with?", "mode": "normal"}
        answer = client.post("/query", json=question, timeout=120)
        # /health answered while the load still holds the lock: it did not wait for it.
        served_meanwhile, health, answered = await served_while_loading(
            answer, lambda: client.get("/health")
        )
    assert served_meanwhile, "the server waited for the model load"
    assert health.status_code == 200, health.text
    assert answered.status_code == 200, answered.text
    assert core.models._llm.built is not None  # built by the question


async def burst(base: str, count: int) -> list[httpx.Response]:
    limits = httpx.Limits(max_connections=count)
    async with httpx.AsyncClient(base_url=base, timeout=300, limits=limits) as client:
        return await asyncio.gather(
            *(
                client.post("/retrieve", json={"question": f"Who works with Bob? {i}"})
                for i in range(count)
            )
        )


@pytest.mark.parametrize(("waiting", "all_answered"), [(256, True), (4, False)])
def test_200_concurrent_retrievals_never_get_a_500(
    settings: Settings, vault: Path, empty_db: Neo4jTarget, waiting: int, all_answered: bool
) -> None:
    (vault / "Alice.md").write_text(ALICE)
    port = free_port()
    bounded = settings.model_copy(
        update={
            "vault_path": vault,
            "extract": False,
            "api_port": port,
            "api_max_concurrent": 4,
            "api_max_waiting": waiting,
        }
    )
    with serving(create_app(bounded), port) as base:
        assert httpx.post(f"{base}/sync", timeout=60).status_code == 200
        responses = asyncio.run(burst(base, 200))
    statuses = [r.status_code for r in responses]
    assert set(statuses) <= {200, 503}, sorted(set(statuses))
    assert all(r.headers.get("Retry-After") == "1" for r in responses if r.status_code == 503)
    assert all(r.json()["citations"] for r in responses if r.status_code == 200)
    if all_answered:
        assert statuses.count(200) == 200
    else:  # 4 running and 4 waiting: the rest are told to come back
        assert 8 <= statuses.count(200) < 200 and statuses.count(503) > 0
