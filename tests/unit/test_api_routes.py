"""The REST app's own behaviour, served in process (no lifespan) by a real Core whose Neo4j does
not answer (nothing listens at its port): what the routes say before, or instead of, reading the
graph — the event loop free while the model clients load, the vault folder's errors, request
validation, and /health shared between callers and telling when to retry."""

from __future__ import annotations

import asyncio
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from pydantic import SecretStr

import knotwork.api.routes.health as health_route
from knotwork.api import create_app
from knotwork.check.health import check_health
from knotwork.check.reports import HealthReport
from knotwork.core import Core, open_core
from knotwork.limits import WorkLimiter
from knotwork.llm.clients import LLAMA_IMPORT, ModelClients, import_off_loop
from tests.conftest import make_settings
from tests.fakes.ollama import FakeOllama

T = TypeVar("T")
KEY = "k" * 20
KEYED = {"X-API-Key": KEY}
# The longest a "model load" holds LlamaIndex's import lock waiting for the loop to show it is
# served: a loop blocked on the lock shows it only once the load gives it up.
HOLD_LIMIT_S = 60.0
TICKS = 5  # the loop's timer served this many times while the work waits for the lock


def _closed_port() -> int:
    """A loopback port nothing listens at: the Core's Neo4j, which refuses every connection."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@asynccontextmanager
async def served(ollama: FakeOllama, **overrides: Any) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the real app, its state set as the lifespan would (without the schema
    check and the background work, which need Neo4j)."""
    settings = make_settings(
        neo4j_uri=f"bolt://127.0.0.1:{_closed_port()}",
        neo4j_password="not-used",
        neo4j_unavailable_after_s=0.3,
        ollama_base_url=ollama.base_url,
        api_key=SecretStr(KEY),
        **overrides,
    )
    app = create_app(settings)
    async with open_core(settings) as core:
        app.state.core = core
        app.state.limiter = WorkLimiter(settings.api_max_concurrent, settings.api_max_waiting)
        app.state.writers = None  # no write below gets as far as the vault's writers
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as c:
            yield c


async def served_while_loading(
    work: Awaitable[T], meanwhile: Callable[[], Awaitable[Any]] | None = None
) -> tuple[bool, Any, T]:
    """``work`` run while another thread holds LLAMA_IMPORT (as the background model load
    holds it) until the event loop shows it is served meanwhile: TICKS of its timer, then
    ``meanwhile`` (another request) answered. Whether all that came with the lock still held,
    what ``meanwhile`` returned, and work's result. Evidence, not a wall-clock bound: a busy
    machine serves the loop late (a stall of 0.7 s seen under load), a loop blocked on the lock
    not at all until the holder gives up at HOLD_LIMIT_S."""
    held, shown = threading.Event(), threading.Event()
    gave_up: list[bool] = []

    def load() -> None:
        with LLAMA_IMPORT:
            held.set()
            gave_up.append(not shown.wait(HOLD_LIMIT_S))

    holder = threading.Thread(target=load)
    holder.start()
    held.wait()
    running = asyncio.ensure_future(work)
    try:
        for _ in range(TICKS):
            await asyncio.sleep(0.02)
        other = await meanwhile() if meanwhile is not None else None
    finally:
        shown.set()
        result = await running
        holder.join()
    return not gave_up[0], other, result


async def test_a_retrieve_does_not_stall_the_loop_while_models_load(
    fake_ollama: FakeOllama,
) -> None:
    async with served(fake_ollama) as client:
        retrieve = client.post("/retrieve", json={"question": "q"}, headers=KEYED)
        served_meanwhile, other, retrieved = await served_while_loading(
            retrieve,
            lambda: client.get("/openapi.json"),  # any other request
        )
    assert served_meanwhile, "the loop waited for the model load"
    assert other.status_code == 200
    assert retrieved.status_code == 503  # its Neo4j refuses: the route ran to the graph


async def test_the_chat_client_and_a_module_load_off_the_loop(
    fake_ollama: FakeOllama, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clients = ModelClients(make_settings(ollama_base_url=fake_ollama.base_url))
    served_meanwhile, _, llm = await served_while_loading(clients.load_llm())
    assert served_meanwhile, "the loop waited for the model load"
    assert llm is clients.llm  # built once, then handed out as is

    (tmp_path / "knotwork_probe_module.py").write_text("VALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "knotwork_probe_module", raising=False)
    served_meanwhile, _, module = await served_while_loading(
        import_off_loop("knotwork_probe_module")
    )
    assert served_meanwhile, "the loop waited for the model load"
    assert module.VALUE == 42 and sys.modules["knotwork_probe_module"] is module


async def test_a_missing_vault_folder_is_503_and_no_vault_folder_409(
    fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    (tmp_path / "file").write_text("not a folder")
    markdown = {**KEYED, "Content-Type": "text/markdown"}
    for vault in (tmp_path / "unmounted", tmp_path / "file"):
        async with served(fake_ollama, vault_path=vault) as client:
            synced = await client.post("/sync", headers=KEYED)
            put = await client.put("/notes/a.md", content=b"# a\n", headers=markdown)
            deleted = await client.delete("/notes/a.md", headers=KEYED)
        for response in (synced, put, deleted):
            assert response.status_code == 503, response.text
            assert response.json()["error"] == "VaultUnavailableError"
            assert str(vault) in response.json()["detail"]
            assert response.headers["Retry-After"] == "1"
    async with served(fake_ollama) as client:
        put = await client.put("/notes/a.md", content=b"# a\n", headers=markdown)
    assert put.status_code == 409 and "no vault folder is configured" in put.json()["detail"]


async def test_a_routes_refusal_answers_in_the_apps_shape(fake_ollama: FakeOllama) -> None:
    """Every KnotworkError reaches the app's handler: ``{"error", "detail"}``. The note routes
    mapped theirs by hand (``api.vault_http.as_http`` and try/except blocks) and answered
    ``{"detail"}`` alone. These refusals come before the graph (its Neo4j is down here); the
    404 and a PUT's 422 are in tests/integration/test_api_notes.py."""
    markdown = {**KEYED, "Content-Type": "text/markdown"}
    async with served(fake_ollama) as client:
        got = await client.get("/notes/..%2Fout.md", headers=KEYED)
        found = await client.get("/notes", params={"folder": "../out"}, headers=KEYED)
        tagged = await client.get("/notes", params={"tag": "#"}, headers=KEYED)
        put = await client.put("/notes/a.md", content=b"# a\n", headers=markdown)
        deleted = await client.delete("/notes/a.md", headers=KEYED)
    for response, status, error in (
        (got, 422, "VaultPathError"),
        (found, 422, "VaultPathError"),
        (tagged, 422, "FilterError"),  # a tag is no note path
        (put, 409, "WriteConflictError"),
        (deleted, 409, "WriteConflictError"),
    ):
        assert response.status_code == status, (response.request.url, response.text)
        body = response.json()
        assert set(body) == {"error", "detail"} and body["error"] == error, body
        assert isinstance(body["detail"], str) and body["detail"], body


async def test_an_empty_put_reaches_the_route(fake_ollama: FakeOllama) -> None:
    """An empty body is an empty note, not a missing one (422): with no vault configured the
    route itself answers."""
    async with served(fake_ollama) as client:
        for kind in ("text/markdown", "application/json"):
            put = await client.put("/notes/Empty.md", headers={**KEYED, "Content-Type": kind})
            assert put.status_code == 409, put.text
            assert "no vault folder is configured" in put.json()["detail"]


async def test_sync_refuses_a_body_rather_than_ignore_its_options(
    fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    """``{"dry_run": true}`` was read, dropped, and a full sync ran; refused before the route
    runs (with no vault folder, a sync without a body is a 503) in the body refusals' shape."""
    async with served(fake_ollama, vault_path=tmp_path / "unmounted") as client:
        json_type = {**KEYED, "Content-Type": "application/json"}
        for body in (b'{"full":true,"dry_run":true}', b"{}"):
            synced = await client.post("/sync", content=body, headers=json_type)
            assert synced.status_code == 422, synced.text
            [problem] = synced.json()["detail"]
            assert problem["type"] == "body_invalid" and problem["loc"] == ["body"]
            assert problem["msg"].startswith("POST /sync takes no body")
            assert "nothing was synced" in problem["msg"]
        empty = {**json_type, "Content-Length": "0"}
        assert (await client.post("/sync", headers=empty)).status_code == 503  # the route ran


async def test_a_note_with_nul_is_refused_in_the_apis_words(fake_ollama: FakeOllama) -> None:
    """Refused with the file reader's "looks binary (NUL bytes); skipped", which reads as
    accepted but ignored, as a plain detail; now as the invalid-UTF-8 body is, before the
    route looks at the vault (none here: that would be a 409)."""
    async with served(fake_ollama) as client:
        for kind, body in (("text/markdown", b"a\0b\n"), ("application/json", b'"a\\u0000b"')):
            put = await client.put(
                "/notes/New/nul.md", content=body, headers={**KEYED, "Content-Type": kind}
            )
            assert put.status_code == 422, (kind, put.text)
            [problem] = put.json()["detail"]
            assert problem["type"] == "body_invalid" and problem["loc"] == ["body"]
            assert "NUL character (at byte 1 of its text)" in problem["msg"]
            assert "(nothing was written)" in problem["msg"] and "skipped" not in put.text


@pytest.mark.parametrize(
    "body",
    [
        {"question": "q", "topk": 3},
        {"question": "q", "filter": {"folder": "private/"}},
        {"question": "q", "filters": {"foldr": "private/"}},
        {"question": "q", "mode": "fast"},  # /query's, not /retrieve's
    ],
)
async def test_retrieve_refuses_unknown_fields(fake_ollama: FakeOllama, body: Any) -> None:
    async with served(fake_ollama) as client:
        response = await client.post("/retrieve", json=body, headers=KEYED)
    assert response.status_code == 422, response.text
    assert any(e["type"] == "extra_forbidden" for e in response.json()["detail"])


async def test_health_is_checked_once_for_callers_at_once_and_says_when_to_retry(
    fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[float] = []

    async def counted(core: Core, finisher: str | None = None) -> HealthReport:
        calls.append(time.monotonic())
        return await check_health(core, finisher)  # the real check: Neo4j refuses, so not ok

    monkeypatch.setattr(health_route, "check_health", counted)
    async with served(fake_ollama) as client:
        first = await asyncio.gather(*(client.get("/health") for _ in range(100)))
        again = await client.get("/health", headers=KEYED)  # within REPORT_TTL_S: the same
        assert len(calls) == 1
        monkeypatch.setattr(health_route, "REPORT_TTL_S", 0.0)
        later = await client.get("/health", headers=KEYED)
    assert len(calls) == 2
    for response in (*first, again, later):
        assert response.status_code == 503, response.text
        assert response.headers["Retry-After"] == "1"
    assert first[0].json() == {"ok": False} and again.json()["neo4j"]["ok"] is False
