"""The hints every MCP tool gives a client about what calling it does (no Neo4j needed: a server
that could not start lists its tools all the same): a read changes nothing and may be called
again; a write may replace or remove what the user wrote, and calling it again adds nothing."""

from __future__ import annotations

from mcp import Client
from mcp.types import ToolAnnotations

from knotwork.mcp.server import create_mcp_server

READS = {"ask", "retrieve", "explain", "search_notes", "get_note", "note_history", "stats"}


async def _hints() -> dict[str, ToolAnnotations]:
    server = create_mcp_server(allow_writes=True, failure="no settings in this test")
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
    hints = {t.name: t.annotations for t in tools}
    assert all(h is not None for h in hints.values()), hints
    return {name: h for name, h in hints.items() if h is not None}


async def test_read_tools_are_read_only_idempotent_and_of_a_closed_world() -> None:
    hints = await _hints()
    assert set(hints) > READS
    for name in READS:
        said = hints[name]
        assert said.read_only_hint is True, name
        assert said.destructive_hint is False, name
        assert said.idempotent_hint is True, name
        assert said.open_world_hint is False, name


async def test_write_tools_say_what_they_may_destroy_and_that_a_repeat_adds_nothing() -> None:
    hints = await _hints()
    said = {
        name: (h.read_only_hint, h.destructive_hint, h.idempotent_hint, h.open_world_hint)
        for name, h in hints.items()
        if name not in READS
    }
    assert said == {
        "upsert_note": (False, True, True, False),  # replaces a note's text
        "delete_note": (False, True, True, False),  # a second delete is refused, changes nothing
        "sync": (False, False, True, False),  # follows the folder: the graph is derived
    }
