"""A ``tools/call``'s arguments checked as a whole before the SDK reads them: an argument the
tool does not take, and ``arguments`` that is no JSON object, each refused with a message
naming the tool and the arguments it takes (the SDK said only "Invalid request parameters")."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from knotwork.api.strict import json_kind

Schemas = Callable[[], Awaitable[dict[str, dict[str, Any]]]]  # each tool's input schema, by name


def unknown_tool(name: str) -> MCPError:
    """A tool the server does not have: a protocol error (invalid params), the name cut (it is
    the client's text, echoed into its context)."""
    return MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {name[:200]}")


def takes(name: str, schema: dict[str, Any]) -> str:
    """``search_notes takes text, tag, folder, limit``, as every argument error ends."""
    return f"{name} takes {', '.join(schema.get('properties', {})) or 'no arguments'}"


def known_arguments(name: str, arguments: dict[str, Any], schema: dict[str, Any]) -> None:
    """A misspelled argument ("topk", "tags" for search_notes' ``tag``) is refused, as REST
    refuses a misspelled field: the SDK dropped it, and the tool ran on the default (every
    note, unfiltered)."""
    known = schema.get("properties", {})
    unknown = [key for key in arguments or {} if key not in known]
    if unknown:
        raise ToolError(
            f"invalid arguments: unknown argument {', '.join(map(repr, unknown))}; "
            f"{takes(name, schema)}"
        )


class ObjectArguments:
    """Server middleware: a ``tools/call`` whose ``arguments`` is a string, a list or a number
    is refused before the SDK's own check, with what the tool takes. Still a JSON-RPC error
    (invalid params), not a tool result: MCP counts a request that fails the ``CallToolRequest``
    schema among the protocol errors."""

    def __init__(self, schemas: Schemas) -> None:
        self._schemas = schemas

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        params = ctx.params
        if ctx.method == "tools/call" and isinstance(params, Mapping):
            name, arguments = params.get("name"), params.get("arguments")
            if isinstance(name, str) and not isinstance(arguments, dict | None):
                schemas = await self._schemas()
                if name not in schemas:
                    raise unknown_tool(name)
                raise MCPError(
                    code=INVALID_PARAMS,
                    message=(
                        f"invalid arguments: the arguments of {name} should be an object of "
                        f"named arguments, not {json_kind(arguments)}; {takes(name, schemas[name])}"
                    ),
                )
        return await call_next(ctx)
