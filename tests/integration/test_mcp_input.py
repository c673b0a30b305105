"""The MCP server answers lines it cannot take with a JSON-RPC error and goes on serving
(stdio), and its HTTP transport keeps to the REST API's Host and Origin rule."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from knotwork.mcp import http_app
from knotwork.settings import Settings
from tests.integration.test_mcp import TOOLS, command_env, mcp_settings
from tests.startup import MCP_INITIALIZE as INITIALIZE

__all__ = ["mcp_settings"]  # the fixture, used by name


def deep(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


async def test_bad_lines_get_json_rpc_errors_and_the_server_goes_on(
    mcp_settings: Settings, tmp_path: Path
) -> None:
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "knotwork.cli", "mcp"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=tmp_path,
        # PYTHONPATH passes on, so a source tree on it is what the child runs too.
        env={
            **{k: os.environ[k] for k in ("PATH", "PYTHONPATH") if k in os.environ},
            **command_env(mcp_settings),
        },
    )
    call = {"name": "ask", "arguments": {"question": "who?"}}
    lines = [
        json.dumps(INITIALIZE),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        "this is not JSON {",
        # json.dumps writes a lone surrogate as the escape \ud800, as a client would.
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call}).replace(
            "who?", "who\\ud800?"
        ),
        json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": deep(300)}),
        "[" * 100_000 + "]" * 100_000,
        json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}),
    ]
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("".join(line + "\n" for line in lines).encode())
    await process.stdin.drain()
    replies: dict[Any, list[dict[str, Any]]] = {}
    try:
        for _ in range(6):
            line = await asyncio.wait_for(process.stdout.readline(), 60)
            message = json.loads(line)
            replies.setdefault(message.get("id"), []).append(message)
    finally:
        process.stdin.close()
        await asyncio.wait_for(process.communicate(), timeout=60)
    assert replies[1][0]["result"]["serverInfo"]["name"] == "knotwork"
    assert [m["error"]["code"] for m in replies[None]] == [-32700, -32700], replies[None]
    assert replies[3][0]["error"]["code"] == -32602
    assert "lone surrogate" in replies[3][0]["error"]["message"]
    assert replies[4][0]["error"]["code"] == -32600
    assert {t["name"] for t in replies[5][0]["result"]["tools"]} == TOOLS  # still serving
    assert process.returncode == 0


def test_http_transport_keeps_the_rest_host_and_origin_rule(settings: Settings) -> None:
    local = settings.model_copy(update={"api_port": 8000, "api_allowed_hosts": ["mcp.example"]})
    post = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    with TestClient(http_app(local), base_url="http://127.0.0.1:8000") as client:
        for host in ("attacker.example:8000", "localhost:9999"):
            refused = client.post("/mcp", json=INITIALIZE, headers={**post, "Host": host})
            assert refused.status_code == 421, host
        origin = {**post, "Origin": "http://localhost:3000"}
        assert client.post("/mcp", json=INITIALIZE, headers=origin).status_code == 403
        named = client.post("/mcp", json=INITIALIZE, headers={**post, "Host": "mcp.example"})
        assert named.status_code == 200, named.text
