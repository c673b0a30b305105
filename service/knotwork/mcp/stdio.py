"""MCP over stdio that answers every line, even one it cannot take.

The SDK's stdio transport drops a line it cannot parse or validate without a reply, so a client
waits forever for the answer to a request with a lone surrogate, a garbage line or JSON nested
deeper than its parser goes. Here each line is screened first and such a line gets a JSON-RPC
error (parse error, invalid request or invalid params, with the request's id when it has one)
through the transport's own writer; the server goes on with the next line.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator
from io import TextIOWrapper
from typing import Any

import anyio
import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

log = logging.getLogger(__name__)

MAX_DEPTH = 64  # the SDK's parser refuses much deeper JSON; beyond this a line is refused


class LineRefused(ValueError):
    def __init__(self, code: int, message: str, request_id: Any = None) -> None:
        super().__init__(message)
        self.code, self.request_id = code, request_id


def _request_id(value: Any) -> int | str | None:
    if isinstance(value, dict):
        rid = value.get("id")
        if isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool)):
            return rid
    return None


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _walk(value: Any, request_id: int | str | None) -> None:
    """Depth and lone surrogates, iteratively."""
    stack: deque[tuple[Any, int]] = deque([(value, 1)])
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise LineRefused(
                types.INVALID_REQUEST, f"the message nests deeper than {MAX_DEPTH}", request_id
            )
        texts = [item] if isinstance(item, str) else list(item) if isinstance(item, dict) else []
        for text in texts:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                raise LineRefused(
                    types.INVALID_PARAMS,
                    "a string holds a lone surrogate, which is not text; send valid Unicode",
                    request_id,
                ) from None
        if isinstance(item, dict):
            stack.extend((inner, depth + 1) for inner in item.values())
        elif isinstance(item, list):
            stack.extend((inner, depth + 1) for inner in item)


def screen(line: str) -> None:
    """Raise LineRefused unless the SDK can take ``line`` as a JSON-RPC message."""
    twice: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        value: dict[str, Any] = {}
        for key, inner in items:
            if key in value:
                twice.append(key)
            value[key] = inner
        return value

    try:
        value = json.loads(line, parse_constant=_refuse_constant, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        raise LineRefused(types.PARSE_ERROR, "parse error: the line is not JSON") from None
    request_id = _request_id(value)
    _walk(value, request_id)
    if twice:  # the parser keeps the last: {"top_k": 5, "top_k": 50} asked for 50, silently
        raise LineRefused(
            types.INVALID_PARAMS,
            f"the key {twice[0][:80]!r} appears twice in one JSON object",
            request_id,
        )
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError as exc:
        first = exc.errors()[0]["msg"] if hasattr(exc, "errors") else str(exc)
        raise LineRefused(
            types.INVALID_REQUEST, f"not a JSON-RPC message: {str(first)[:200]}", request_id
        ) from None


class _ScreenedLines:
    """Stdin lines the SDK can take; the others are answered through ``replies``."""

    def __init__(self, source: AsyncIterable[str]) -> None:
        self.source = source
        self.replies: anyio.abc.ObjectSendStream[SessionMessage] | None = None
        self.ready = anyio.Event()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        await self.ready.wait()
        async for line in self.source:
            if not line.strip():
                continue
            try:
                screen(line)
            except LineRefused as refused:
                log.warning("refused an MCP line: %s", refused)
                await self._reply(refused)
                continue
            yield line

    async def _reply(self, refused: LineRefused) -> None:
        assert self.replies is not None
        error = types.JSONRPCError(
            jsonrpc="2.0",
            id=refused.request_id,
            error=types.ErrorData(code=refused.code, message=str(refused)),
        )
        await self.replies.send(SessionMessage(error))


async def _stdin_lines(stream: TextIOWrapper) -> AsyncIterator[str]:
    """``stream``'s lines, read by a daemon thread of their own: a server stopped (Ctrl-C)
    while it waits for the client's next line exits at once. anyio's file wrapper reads in
    its worker threads, which the interpreter waits for at exit, so the exit waited for a line
    (in a terminal, until Enter or Ctrl-D)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str] = asyncio.Queue(maxsize=64)  # a fast client waits, as it did

    def put(line: str) -> None:
        asyncio.run_coroutine_threadsafe(queue.put(line), loop).result()

    def pump() -> None:
        try:
            for line in iter(stream.readline, ""):
                put(line)
            put("")  # end of input
        except (RuntimeError, OSError, ValueError):  # the loop has closed, or stdin has
            return

    threading.Thread(target=pump, name="mcp-stdin", daemon=True).start()
    while line := await queue.get():
        yield line


async def serve_stdio(server: MCPServer[Any]) -> None:
    """Run ``server`` over stdin and stdout, every line answered."""
    stdin = TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    lines = _ScreenedLines(_stdin_lines(stdin))
    async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
        lines.replies = write_stream
        lines.ready.set()
        lowlevel = server._lowlevel_server  # what the SDK's own run_stdio_async runs
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
