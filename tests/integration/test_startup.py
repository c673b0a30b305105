"""On the real Neo4j with the fake Ollama: ``init``, ``doctor`` and ``verify`` do their whole work
without importing a model package, and ``knotwork mcp`` and ``knotwork serve`` start, list their
tools and answer ``/health`` with LlamaIndex (and torch) not importable at all; only the first
model call needs it (tests/startup.py runs each in a fresh interpreter)."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import time
from pathlib import Path

import httpx

from knotwork.settings import Settings
from tests.integration.conftest import Neo4jTarget, put
from tests.startup import MODELS, child_command, child_env, run_command

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}


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
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "stats"}},
    ]
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("".join(json.dumps(r) + "\n" for r in requests).encode())
    await process.stdin.drain()
    answers = [json.loads(await asyncio.wait_for(process.stdout.readline(), 120)) for _ in "123"]
    process.stdin.close()
    _, stderr = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0, stderr.decode()[-2000:]
    by_id = {a["id"]: a for a in answers}
    assert by_id[1]["result"]["serverInfo"]["name"] == "knotwork"
    assert {t["name"] for t in by_id[2]["result"]["tools"]} == {
        "ask",
        "retrieve",
        "get_note",
        "stats",
    }
    stats = by_id[3]["result"]
    assert not stats.get("isError"), stats
    assert stats["structuredContent"]["vault"] == "default"
    # The background load of the model clients ran, and failed on the blocked import.
    assert b"model clients could not be built" in stderr
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
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=60)
    # Uvicorn ends by raising the SIGTERM it caught again, so the child writes no module list:
    # the blocked import (logged by the background load) is what shows LlamaIndex was not used.
    assert b"model clients could not be built" in stderr
    assert b"No module named 'llama_index" in stderr
