"""On the real Neo4j with the fake Ollama: ``init``, ``doctor`` and ``verify`` do their whole work
without importing a model package, and ``knotwork mcp`` and ``knotwork serve`` start, list their
tools and answer ``/health`` with LlamaIndex (and torch) not importable at all; only the first
model call needs it (tests/startup.py runs each in a fresh interpreter)."""

from __future__ import annotations

import asyncio
import json
import select
import socket
import subprocess
import time
from pathlib import Path
from typing import IO

import httpx

from knotwork.settings import Settings
from tests.integration.conftest import Neo4jTarget, put
from tests.integration.test_mcp import TOOLS
from tests.startup import MCP_HANDSHAKE, MODELS, child_command, child_env, run_command

# The background load of the model clients, failing on the blocked import.
WARM_UP_FAILED = b"model clients could not be built"


async def logged(stream: asyncio.StreamReader | None, text: bytes) -> None:
    """Read ``stream`` up to a line holding ``text``."""
    assert stream is not None
    while text not in (line := await stream.readline()):
        assert line, f"{text!r} was not logged"


def logged_sync(stream: IO[bytes] | None, text: bytes, timeout_s: float = 120) -> None:
    """Read ``stream`` (a pipe) up to a line holding ``text``, for ``timeout_s`` at most."""
    assert stream is not None
    deadline = time.monotonic() + timeout_s
    while select.select([stream], [], [], max(0.0, deadline - time.monotonic()))[0]:
        line = stream.readline()
        assert line, f"{text!r} was not logged"
        if text in line:
            return
    raise AssertionError(f"{text!r} was not logged within {timeout_s} s")


def command_env(settings: Settings, vault: Path, **extra: str) -> dict[str, str]:
    return {
        "KNOTWORK_NEO4J_URI": settings.neo4j_uri,
        "KNOTWORK_NEO4J_USER": settings.neo4j_user,
        "KNOTWORK_NEO4J_PASSWORD": settings.password(),
        "KNOTWORK_OLLAMA_BASE_URL": settings.ollama_base_url,
        "KNOTWORK_VAULT_PATH": str(vault),
        "KNOTWORK_EXTRACT": "false",
        **extra,
    }


def test_init_doctor_and_verify_import_no_model_or_server_package(
    settings: Settings, empty_db: Neo4jTarget, vault: Path, tmp_path: Path
) -> None:
    env = command_env(settings, vault)
    for command, says in [
        ("init", "schema ready"),
        ("doctor", "manifest matches the settings"),
        ("verify", "graph and vault agree"),
    ]:
        run = run_command([command], tmp_path, env)
        assert run.code == 0, run.output
        assert says in run.output
        assert run.loaded == [], f"knotwork {command} imported {run.loaded}"


async def test_mcp_lists_its_tools_and_answers_stats_without_llama_index(
    settings: Settings, empty_db: Neo4jTarget, vault: Path, tmp_path: Path
) -> None:
    put(vault, "Alice.md", "# Alice\n\nWorks with Bob.\n")
    out = tmp_path / "loaded.json"
    process = await asyncio.create_subprocess_exec(
        *child_command(["mcp"], out, blocked=MODELS),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=tmp_path,
        env=child_env(command_env(settings, vault)),
    )
    requests = [
        *MCP_HANDSHAKE,
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "stats"}},
    ]
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("".join(json.dumps(r) + "\n" for r in requests).encode())
    await process.stdin.drain()
    answers = [json.loads(await asyncio.wait_for(process.stdout.readline(), 120)) for _ in "123"]
    await asyncio.wait_for(logged(process.stderr, WARM_UP_FAILED), 120)
    process.stdin.close()
    _, stderr = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0, stderr.decode()[-2000:]
    by_id = {a["id"]: a for a in answers}
    assert by_id[1]["result"]["serverInfo"]["name"] == "knotwork"
    assert {t["name"] for t in by_id[2]["result"]["tools"]} == TOOLS
    stats = by_id[3]["result"]
    assert not stats.get("isError"), stats
    assert stats["structuredContent"]["vault"] == "default"
    loaded = json.loads(out.read_text(encoding="utf-8"))
    assert "fastapi" not in loaded


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_serve_answers_health_without_llama_index(
    settings: Settings, empty_db: Neo4jTarget, vault: Path, tmp_path: Path
) -> None:
    port = free_port()
    env = command_env(settings, vault, KNOTWORK_API_PORT=str(port))
    process = subprocess.Popen(
        child_command(["serve"], tmp_path / "loaded.json", blocked=MODELS),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        bufsize=0,  # no reader buffer: select() then sees every line still to read
        cwd=tmp_path,
        env=child_env(env),
    )
    try:
        with httpx.Client(timeout=10) as client:
            for _ in range(480):
                try:
                    response = client.get(f"http://127.0.0.1:{port}/health")
                    break
                except httpx.TransportError:
                    assert process.poll() is None, "knotwork serve exited"
                    time.sleep(0.25)
            else:
                raise AssertionError("knotwork serve did not answer /health")
            assert response.status_code == 200, response.text
            assert response.json()["ok"] is True
            stats = client.get(f"http://127.0.0.1:{port}/stats")
            assert stats.status_code == 200, stats.text
            # Uvicorn ends by raising the SIGTERM it caught again, so the child writes no module
            # list: the background load failing on the blocked import shows LlamaIndex was unused.
            logged_sync(process.stderr, WARM_UP_FAILED)
            assert client.get(f"http://127.0.0.1:{port}/health").status_code == 200
    finally:
        process.terminate()
        process.communicate(timeout=60)
