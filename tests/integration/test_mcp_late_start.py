"""``knotwork mcp`` started while Neo4j is down, as a desktop client starts it at login: its
tool calls say Neo4j is not reachable and that the server tries again, and once Neo4j is up
the next call is served, without restarting the server."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from knotwork.core import Core
from knotwork.mcp.starting import RETRY_AFTER_S
from knotwork.settings import Settings
from tests.integration.server import TcpProxy
from tests.integration.test_mcp import command_env, synced_vault, text_of


@pytest.fixture
async def synced(settings: Settings, vault: Path, core: Core) -> Settings:
    return await synced_vault(settings, vault, core)


@pytest.mark.parametrize("options", [[], ["--allow-writes"]])
async def test_a_server_started_while_neo4j_was_down_serves_once_it_is_up(
    synced: Settings, vault: Path, proxy: TcpProxy, tmp_path: Path, options: list[str]
) -> None:
    through = synced.model_copy(update={"neo4j_uri": f"bolt://127.0.0.1:{proxy.port}"})
    proxy.cut()  # Neo4j looks stopped to the server from its start
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "knotwork.cli", "mcp", *options],
        env=command_env(
            through, KNOTWORK_VAULT_PATH=str(vault), KNOTWORK_STATE_DIR=str(tmp_path / "state")
        ),
        cwd=tmp_path,  # no .env of a developer's own
    )
    async with Client(params, mode="legacy") as client:
        down = await client.call_tool("stats", {})
        said = text_of(down)
        assert down.is_error and "Neo4j is not reachable" in said, said
        assert "tries again on the next tool call" in said, said
        proxy.restore()
        for _ in range(int(RETRY_AFTER_S) * 6):  # the next call past the interval opens it
            up = await client.call_tool("stats", {})
            if not up.is_error:
                break
            await asyncio.sleep(0.5)
        assert not up.is_error, text_of(up)
        assert (up.structured_content or {})["notes"] == 3
        if options:  # the writers, started late, write as at a start with Neo4j up
            kite = "# Kite\n\nA kite hovers.\n"
            written = await client.call_tool("upsert_note", {"path": "Kite.md", "content": kite})
            assert not written.is_error, text_of(written)
            assert (written.structured_content or {})["status"] == "done", text_of(written)
            stats = await client.call_tool("stats", {})
            assert (stats.structured_content or {})["notes"] == 4
