"""``knotwork mcp --transport http`` with the SDK's streamable-HTTP client, on the real Neo4j
with the fake Ollama: the read tools, the write tools only with ``--allow-writes``, a note
edited through the core seen by the next ``retrieve`` of the same running server, and the REST
API's rules (the key, Host and Origin) in front of ``/mcp``."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR
from pydantic import SecretStr

from knotwork.core import Core
from knotwork.errors import ConfigError
from knotwork.ingest.ingestor import Ingestor
from knotwork.mcp import http_app
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import put
from tests.integration.server import free_port
from tests.integration.test_answer import labels, model
from tests.integration.test_mcp import TOOLS, call, command_env, refused, synced_vault
from tests.integration.test_mcp_tools import KITE, WRITES

KEY = "m" * 24
GARDEN_QUESTION = "When do the garden tomatoes ripen?"


@pytest.fixture
async def mcp_settings(settings: Settings, vault: Path, core: Core) -> Settings:
    return await synced_vault(settings, vault, core)


@asynccontextmanager
async def over_http(
    settings: Settings, tmp_path: Path, *args: str, **env: str
) -> AsyncIterator[tuple[str, asyncio.subprocess.Process]]:
    """``knotwork mcp --transport http`` on a free loopback port, once it answers at ``/mcp``;
    yields the endpoint's URL and the process. Its log goes to a file the failure shows."""
    port = free_port()
    log = tmp_path / f"mcp-{port}.log"
    command = ("mcp", "--transport", "http", "--port", str(port), *args)
    with log.open("wb") as sink:
        process = await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "knotwork.cli", *command),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=sink,
            stderr=sink,
            cwd=tmp_path,  # no .env of a developer's own
            env={"PATH": os.environ.get("PATH", ""), **command_env(settings, **env)},
        )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        async with httpx.AsyncClient(timeout=5) as plain:
            for _ in range(240):
                if process.returncode is not None:
                    pytest.fail(f"the HTTP MCP server exited:\n{log.read_text()[-2000:]}")
                try:
                    await plain.get(url)
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.25)
            else:
                pytest.fail(f"the HTTP MCP server did not start:\n{log.read_text()[-2000:]}")
        yield url, process
    finally:
        if process.returncode is None:
            process.terminate()
        await asyncio.wait_for(process.wait(), timeout=30)


@asynccontextmanager
async def http_client(url: str, **headers: str) -> AsyncIterator[Client]:
    """The SDK's client over streamable HTTP, with extra request headers."""
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as transport,
        Client(streamable_http_client(url, http_client=transport)) as client,
    ):
        yield client


async def test_http_serves_every_read_tool_and_no_write_tool(
    mcp_settings: Settings, tmp_path: Path, vault: Path, fake_ollama: FakeOllama
) -> None:
    fake_ollama.chat_script = model(
        lambda prompt: f"Alice works with Bob {labels(prompt)['People/Alice.md']}."
    )
    async with over_http(mcp_settings, tmp_path) as (url, _), http_client(url) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        stats = await call(client, "stats")
        retrieved = await call(client, "retrieve", question=GARDEN_QUESTION)
        explained = await call(client, "explain", question=GARDEN_QUESTION)
        asked = await call(client, "ask", question="Who works with Bob on the graph database?")
        note = await call(client, "get_note", path="Garden.md")
        found = await call(client, "search_notes", text="ali")
        history = await call(client, "note_history", path="Garden.md")
        missing = await refused(client, "get_note", path="Nobody.md")
        with pytest.raises(MCPError) as write:  # no such tool: a JSON-RPC error
            await client.call_tool("upsert_note", {"path": "X.md", "content": "# X\n"})
    assert set(tools) == TOOLS
    assert all(t.annotations and t.annotations.read_only_hint for t in tools.values())
    assert stats["notes"] == 3 and stats["vault"] == "default"
    assert retrieved["status"] == "ok" and retrieved["citations"][0]["path"] == "Garden.md"
    assert explained["hits"][0]["citation"].startswith("Garden.md#Garden:1-")
    assert asked["status"] == "ok"
    assert asked["answer"] == "Alice works with Bob [People/Alice.md#Alice]."
    assert "August" in note["chunks"][0]["text"]
    assert [n["path"] for n in found["notes"]] == ["People/Alice.md"]
    assert len(history["revisions"]) == 1
    assert "no note 'Nobody.md' in the graph" in missing
    assert write.value.code == INVALID_PARAMS and not (vault / "X.md").exists()


async def test_http_writes_only_with_allow_writes_and_sees_edits_without_a_restart(
    mcp_settings: Settings, tmp_path: Path, vault: Path, core: Core
) -> None:
    """One server run: a note edited through the core (as the watcher or the CLI would) is
    what the next ``retrieve`` finds, and so are the notes its own write tools change."""
    ingestor = Ingestor(core, root=vault, extract_enabled=False)
    flags = ("--allow-writes",)
    async with (
        over_http(mcp_settings, tmp_path, *flags, KNOTWORK_VAULT_PATH=str(vault)) as (url, proc),
        http_client(url) as client,
    ):
        listed = {t.name for t in (await client.list_tools()).tools}
        before = await call(client, "retrieve", question=GARDEN_QUESTION)
        edited = "# Garden\n\n## Harvest\n\nThe tomatoes in the garden ripen in late September.\n"
        put(vault, "Garden.md", edited)
        outcome = await ingestor.upsert_text(
            "Garden.md", edited, (vault / "Garden.md").stat().st_mtime
        )
        after = await call(client, "retrieve", question=GARDEN_QUESTION)
        written = await call(client, "upsert_note", path="Birds/Kite.md", content=KITE)
        kite = await call(client, "retrieve", question="What circles over the old quarry?")
        deleted = await call(client, "delete_note", path="Birds/Kite.md")
        put(vault, "Birds/Heron.md", "# Heron\n\nThe grey heron fishes in the mill pond.\n")
        synced = await call(client, "sync")
        heron = await call(client, "retrieve", question="Where does the grey heron fish?")
        assert proc.returncode is None, "the same server answered throughout"
    assert listed == TOOLS | WRITES
    assert "August" in before["citations"][0]["snippet"]
    assert outcome.status == "written"
    top = after["citations"][0]
    assert (top["path"], top["heading"]) == ("Garden.md", "Garden > Harvest")
    assert "September" in top["snippet"]
    assert all("August" not in c["snippet"] for c in after["citations"])
    assert written["status"] == "done" and kite["citations"][0]["path"] == "Birds/Kite.md"
    assert deleted["status"] == "done" and not (vault / "Birds/Kite.md").exists()
    assert (synced["written"], synced["errors"]) == (1, [])
    assert heron["citations"][0]["path"] == "Birds/Heron.md"


async def test_http_requires_the_api_key_when_one_is_set(
    mcp_settings: Settings, tmp_path: Path
) -> None:
    async with over_http(mcp_settings, tmp_path, KNOTWORK_API_KEY=KEY) as (url, _):
        async with httpx.AsyncClient(timeout=5) as plain:
            missing = await plain.post(url, json={})
            wrong = await plain.post(url, json={}, headers={"X-API-Key": "n" * 24})
        for response in (missing, wrong):
            assert response.status_code == 401
            assert response.json() == {"detail": "missing or wrong X-API-Key header"}
        async with http_client(url, **{"X-API-Key": KEY}) as client:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            assert (await call(client, "stats"))["notes"] == 3


async def test_http_refuses_foreign_hosts_and_origins(
    mcp_settings: Settings, tmp_path: Path
) -> None:
    """DNS rebinding and cross-site pages meet the REST API's guard before any MCP message."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "page", "version": "0"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream"}
    async with over_http(mcp_settings, tmp_path) as (url, _):
        port = url.split(":")[2].split("/")[0]
        async with httpx.AsyncClient(timeout=10, headers=accept) as raw:
            rebound = await raw.post(url, json=initialize, headers={"Host": f"evil.test:{port}"})
            foreign = await raw.post(url, json=initialize, headers={"Origin": "http://evil.test"})
            other_port = await raw.post(
                url, json=initialize, headers={"Origin": "http://localhost:6274"}
            )
            form = await raw.post(
                url, content="x=1", headers={"Content-Type": "application/x-www-form-urlencoded"}
            )
            own = await raw.post(
                url, json=initialize, headers={"Origin": f"http://localhost:{port}"}
            )
    assert rebound.status_code == 421 and "evil.test" in rebound.json()["detail"]
    assert foreign.status_code == 403 and "cross-site" in foreign.json()["detail"]
    assert other_port.status_code == 403
    assert form.status_code == 415
    assert own.status_code == 200, own.text  # the server's own origin is let through


def test_http_beyond_loopback_needs_a_key(settings: Settings) -> None:
    exposed = settings.model_copy(update={"api_host": "0.0.0.0", "api_key": None})
    with pytest.raises(ConfigError, match="KNOTWORK_API_KEY must be set"):
        http_app(exposed)
    short = exposed.model_copy(update={"api_key": SecretStr("short")})
    with pytest.raises(ConfigError):
        http_app(short)


async def test_http_bodies_are_bounded_and_checked_as_rest_bodies_are(
    mcp_settings: Settings, tmp_path: Path, vault: Path
) -> None:
    """KNOTWORK_API_MAX_BODY_BYTES and standard JSON, as for REST, each refusal a JSON-RPC
    error as the SDK's transport answers (not REST's ``{"detail": …}``); with writes, room for
    a note of KNOTWORK_MAX_NOTE_BYTES in a tool call's JSON."""
    accept = {"Accept": "application/json, text/event-stream"}
    ping = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "pad": "' + b"x" * 1_000_000 + b'"}'
    json_body = {"Content-Type": "application/json"}
    async with (
        over_http(mcp_settings, tmp_path) as (url, _),
        httpx.AsyncClient(timeout=10, headers=accept) as raw,
    ):
        large = await raw.post(url, content=ping, headers=json_body)
        nan = await raw.post(
            url,
            content=b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": NaN}',
            headers=json_body,
        )
        garbage = await raw.post(url, content=b'{"jsonrpc": "2.0", "id": 1,', headers=json_body)
    assert large.status_code == 413, large.text
    assert large.json()["error"]["code"] == INVALID_REQUEST and large.json()["id"] is None
    assert "KNOTWORK_API_MAX_BODY_BYTES" in large.json()["error"]["message"]
    for refused_body, says in ((nan, "NaN"), (garbage, "not valid JSON")):
        assert refused_body.status_code == 400, refused_body.text
        assert refused_body.json()["jsonrpc"] == "2.0" and refused_body.json()["id"] is None
        assert refused_body.json()["error"]["code"] == PARSE_ERROR, refused_body.text
        assert says in refused_body.json()["error"]["message"], refused_body.text

    body = "# Big\n\n" + "Ünïcödé words in a long note. " * 4_000  # ~128 kB of JSON
    async with (
        over_http(mcp_settings, tmp_path, "--allow-writes", KNOTWORK_VAULT_PATH=str(vault)) as (
            url,
            _,
        ),
        http_client(url) as client,
    ):
        written = await call(client, "upsert_note", path="Big.md", content=body)
    assert written["status"] == "done"


async def test_http_retrievals_at_once_are_bounded_as_rest_ones_are(
    mcp_settings: Settings, tmp_path: Path
) -> None:
    """One running and none waiting: of calls made at once, the ones beyond are told the
    server is busy (a tool error), not run all together."""
    limits = {"KNOTWORK_API_MAX_CONCURRENT": "1", "KNOTWORK_API_MAX_WAITING": "0"}
    async with over_http(mcp_settings, tmp_path, **limits) as (url, _), http_client(url) as client:
        await call(client, "retrieve", question=GARDEN_QUESTION)  # plans the queries
        results = await asyncio.gather(
            *(client.call_tool("retrieve", {"question": GARDEN_QUESTION}) for _ in range(8))
        )
    busy = [r for r in results if r.is_error]
    assert 0 < len(busy) < 8, [r.is_error for r in results]
    assert all("ServerBusyError" in str(r.content) and "busy" in str(r.content) for r in busy)


async def test_http_writes_take_bodies_up_to_the_screens_limit_not_the_sdks(
    mcp_settings: Settings, tmp_path: Path, vault: Path
) -> None:
    """A tool call past the MCP SDK's own 4 MiB cap but within KNOTWORK_API_MAX_BODY_BYTES + 3 *
    KNOTWORK_MAX_NOTE_BYTES reaches the tool (here refused for the note's own size, by name),
    never a bare 413 from the SDK."""
    body = "# Big\n\n" + "word " * 900_000  # 4.5 MB: over the SDK's cap and the note limit
    async with (
        over_http(mcp_settings, tmp_path, "--allow-writes", KNOTWORK_VAULT_PATH=str(vault)) as (
            url,
            _,
        ),
        http_client(url) as client,
    ):
        refusal = await refused(client, "upsert_note", path="Big.md", content=body)
    assert "NoteTooLargeError" in refusal and "KNOTWORK_MAX_NOTE_BYTES" in refusal
    assert not (vault / "Big.md").exists()
