"""The MCP server's start and its tools' contract, without Neo4j: a start that failed for
Neo4j being unreachable is tried again (not too often), any other failure stays; an env file
that cannot be read is a tool error, not a dead server; the input schemas declare REST's
bounds; a result's text block is compact JSON. (With Neo4j back: ``test_mcp_late_start``.)"""

from __future__ import annotations

import json
import os
import sys
from datetime import date
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import TextContent
from pydantic import BaseModel

from knotwork.api.schemas import FiltersIn, QueryRequest, RetrieveRequest
from knotwork.errors import ConfigError, GraphAuthError, GraphUnavailableError
from knotwork.mcp import starting
from knotwork.mcp.common import KnotworkServer, Served, filters, tool_errors
from knotwork.mcp.server import create_mcp_server
from knotwork.mcp.starting import LateStart


class _Starts:
    """A start that raises each of ``failures`` in turn, then opens."""

    def __init__(self, *failures: Exception) -> None:
        self.failures, self.calls = list(failures), 0

    async def __call__(self) -> Served:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return Served(failure="opened")


def _due(late: LateStart) -> None:
    late._tried_at -= starting.RETRY_AFTER_S  # as if the interval had passed


async def test_an_unreachable_neo4j_is_tried_again_not_more_often_than_the_interval() -> None:
    start = _Starts(GraphUnavailableError("Neo4j is not reachable: refused"))
    late = LateStart(start, "GraphUnavailableError: Neo4j is not reachable: refused")
    await late.attempt()  # just failed at the start: too soon
    assert start.calls == 0
    with pytest.raises(ToolError) as error:
        late.served()
    said = str(error.value)
    assert "Neo4j is not reachable" in said and "tries again on the next tool call" in said
    _due(late)
    await late.attempt()  # still down
    assert start.calls == 1 and late.state is None
    await late.attempt()
    assert start.calls == 1  # the interval again
    _due(late)
    await late.attempt()
    assert start.calls == 2 and late.served().failure == "opened"
    _due(late)
    await late.attempt()
    assert start.calls == 2  # opened: never again


@pytest.mark.parametrize("failure", [ConfigError("bad"), GraphAuthError("refused credentials")])
async def test_a_failure_another_try_would_not_change_stays(failure: Exception) -> None:
    start = _Starts(failure, failure)
    late = LateStart(start, "GraphUnavailableError: Neo4j is not reachable")
    _due(late)
    await late.attempt()
    _due(late)
    await late.attempt()
    assert start.calls == 1
    with pytest.raises(ToolError) as error:
        late.served()
    assert type(failure).__name__ in str(error.value)
    assert "tries again" not in str(error.value)


async def test_an_env_file_that_cannot_be_read_is_a_tool_error(tmp_path: Path) -> None:
    """It exited 2 with a usage box before the handshake: the client showed a dead server."""
    missing = tmp_path / "missing.env"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "knotwork.cli", "mcp", "--env-file", str(missing)],
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.environ.get("PYTHONPATH", "")},
        cwd=tmp_path,
    )
    async with Client(params, mode="legacy") as client:
        assert client.server_info is not None and client.server_info.name == "knotwork"
        result = await client.call_tool("stats", {})
    text = "\n".join(c.text for c in result.content if isinstance(c, TextContent))
    assert result.is_error, text
    assert text.startswith("the Knotwork MCP server could not start: ConfigError: "), text
    assert f"--env-file {missing} cannot be read" in text, text


async def test_the_input_schemas_declare_what_rest_checks() -> None:
    async with Client(create_mcp_server(failure="not started")) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    rest = FiltersIn.model_json_schema()["properties"]
    question = RetrieveRequest.model_json_schema()["properties"]["question"]
    for name in ("ask", "retrieve", "explain"):
        declared = tools[name].input_schema["properties"]
        assert declared["question"]["minLength"] == question["minLength"] == 1
        assert declared["question"]["maxLength"] == question["maxLength"] == 2000
        folder, _ = declared["folder"]["anyOf"]
        assert folder == rest["folder"]["anyOf"][0] == {"type": "string", "maxLength": 500}
        tags, _ = declared["tags"]["anyOf"]
        assert tags["maxItems"] == rest["tags"]["maxItems"] == 20
        assert (
            tags["items"]
            == rest["tags"]["items"]
            == {
                "type": "string",
                "minLength": 1,
                "maxLength": 100,
            }
        )
        for day in ("date_from", "date_to"):
            assert {"type": "string", "format": "date"} in declared[day]["anyOf"]


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({"question": ""}, "question: String should have at least 1 character"),
        ({"question": "Who?", "tags": [""]}, "tags.0: String should have at least 1 character"),
        ({"question": "Who?", "tags": ["t"] * 21}, "tags: List should have at most 20 items"),
        ({"question": "Who?", "folder": "f" * 501}, "folder: String should have at most 500"),
        ({"question": "Who?", "date_to": "2024-02-30"}, "date_to: Value error, 2024-02-30 is not"),
    ],
)
async def test_the_declared_bounds_are_the_ones_checked(
    arguments: dict[str, object], says: str
) -> None:
    async with Client(create_mcp_server(failure="not started")) as client:
        result = await client.call_tool("retrieve", arguments)
    text = "\n".join(c.text for c in result.content if isinstance(c, TextContent))
    assert result.is_error and text.startswith("invalid arguments: "), text
    assert says in text, text


def test_a_date_range_backwards_names_the_tools_own_arguments() -> None:
    """It said "filters: Value error, …": no tool takes a ``filters`` argument."""
    scope = filters(None, None, date(2024, 5, 1), date(2024, 1, 1), "all")
    with pytest.raises(ToolError) as error, tool_errors():
        QueryRequest.model_validate({"question": "Who?", "filters": scope})
    assert str(error.value) == "invalid arguments: date_from 2024-05-01 is after date_to 2024-01-01"


class _Body(BaseModel):
    title: str
    hits: list[dict[str, float]]


async def test_a_result_is_compact_json_in_its_text_block() -> None:
    """Indented by 2, a quarter of a result was padding in the agent's context."""
    server = KnotworkServer("t")

    def body() -> _Body:
        return _Body(title="Zoë", hits=[{"score": 0.5}, {"score": 0.25}])

    server.add_tool(body)
    async with Client(server) as client:
        result = await client.call_tool("body", {})
    (block,) = result.content
    assert isinstance(block, TextContent)
    assert block.text == '{"title":"Zoë","hits":[{"score":0.5},{"score":0.25}]}'
    assert json.loads(block.text) == result.structured_content
