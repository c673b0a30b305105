"""The MCP tools' arguments are as strict as REST's bodies: "3" for ``top_k`` or ``limit`` is
a tool error naming the argument, never read as 3. Checked in process on a server that could
not start: the SDK checks the arguments before any tool runs."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, Request, TextContent

from knotwork.mcp.server import create_mcp_server
from knotwork.mcp.stdio import LineRefused, screen


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("retrieve", {"question": "Who?", "top_k": "3"}, "top_k: should be an integer, not a str"),
        ("ask", {"question": "Who?", "top_k": 2.0}, "top_k: should be an integer, not a number"),
        ("explain", {"question": "Who?", "top_k": True}, "top_k: should be an integer, not true"),
        ("search_notes", {"limit": "5"}, "limit: should be an integer, not a string"),
        ("note_history", {"path": "a.md", "limit": "5"}, "limit: should be an integer"),
        ("retrieve", {"question": 5}, "question: should be a string, not a number"),
        ("ask", {"question": "Who?", "tags": "launch"}, "tags: should be a list, not a string"),
        # GET /notes' bounds: an agent's search is held to what REST holds a client's to
        ("search_notes", {"text": "x" * 501}, "text: String should have at most 500"),
        ("search_notes", {"tag": "t" * 101}, "tag: String should have at most 100"),
        ("search_notes", {"folder": "f" * 501}, "folder: String should have at most 500"),
    ],
)
async def test_an_argument_of_another_json_type_is_a_tool_error(
    tool: str, arguments: dict[str, Any], says: str
) -> None:
    async with Client(create_mcp_server(failure="not started")) as client:
        result = await client.call_tool(tool, arguments)
    text = "\n".join(c.text for c in result.content if isinstance(c, TextContent))
    assert result.is_error and text.startswith("invalid arguments: "), text
    assert says in text, text


async def test_an_unknown_tool_is_a_protocol_error_not_a_tool_result() -> None:
    """MCP lists an unknown tool among the protocol errors (invalid params), not the results
    a model reads; a bad argument of a known tool stays a tool error (above)."""
    async with Client(create_mcp_server(failure="not started")) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("no_such_tool", {"question": "Who?"})
        with pytest.raises(MCPError) as long:
            await client.call_tool("x" * 5000, {})
    assert raised.value.code == INVALID_PARAMS, raised.value
    assert raised.value.message == "Unknown tool: no_such_tool", raised.value
    assert long.value.code == INVALID_PARAMS and len(long.value.message) < 300


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("retrieve", {"question": "Who?", "topk": 3}, "unknown argument 'topk'; retrieve takes"),
        ("search_notes", {"tags": "launch"}, "unknown argument 'tags'; search_notes takes text,"),
        ("stats", {"verbose": True}, "unknown argument 'verbose'; stats takes no arguments"),
    ],
)
async def test_a_misspelled_argument_is_a_tool_error_not_the_default(
    tool: str, arguments: dict[str, Any], says: str
) -> None:
    """The SDK dropped an argument the tool does not take: "tags" for search_notes' "tag"
    listed every note, unfiltered, as if it were the answer."""
    async with Client(create_mcp_server(failure="not started")) as client:
        result = await client.call_tool(tool, arguments)
    text = "\n".join(c.text for c in result.content if isinstance(c, TextContent))
    assert result.is_error and text.startswith("invalid arguments: "), text
    assert says in text, text


class _RawCall(Request[dict[str, Any], Literal["tools/call"]]):
    """A ``tools/call`` as a hand-written client sends it: params unchecked on this side."""

    method: Literal["tools/call"] = "tools/call"


@pytest.mark.parametrize(
    ("arguments", "kind"),
    [('{"question": "Who?"}', "a string"), (["Who?"], "a list"), (5, "a number")],
)
async def test_arguments_that_are_no_object_are_refused_with_what_the_tool_takes(
    arguments: Any, kind: str
) -> None:
    """The SDK answered a bare "Invalid request parameters": no tool, no argument named."""
    async with Client(create_mcp_server(failure="not started")) as client:
        call = _RawCall(params={"name": "search_notes", "arguments": arguments})
        with pytest.raises(MCPError) as raised:
            await client.session.send_request(call, CallToolResult)
        unknown = _RawCall(params={"name": "no_such_tool", "arguments": arguments})
        with pytest.raises(MCPError) as no_tool:
            await client.session.send_request(unknown, CallToolResult)
    assert raised.value.code == INVALID_PARAMS, raised.value
    assert raised.value.message == (
        f"invalid arguments: the arguments of search_notes should be an object of named "
        f"arguments, not {kind}; search_notes takes text, tag, folder, limit"
    ), raised.value
    assert no_tool.value.message == "Unknown tool: no_such_tool", no_tool.value


def test_a_stdio_line_with_a_key_twice_is_refused_with_its_id() -> None:
    """The parser kept the last value: the call was answered as one for 50 hits."""
    arguments = '{"question": "Who?", "top_k": 5, "top_k": 50}'
    line = (
        '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", '
        f'"params": {{"name": "retrieve", "arguments": {arguments}}}}}'
    )
    with pytest.raises(LineRefused) as refused:
        screen(line)
    assert refused.value.request_id == 7 and refused.value.code == INVALID_PARAMS
    assert "the key 'top_k' appears twice in one JSON object" in str(refused.value)
    screen(line.replace('"top_k": 5, ', ""))  # once is a message the SDK takes
