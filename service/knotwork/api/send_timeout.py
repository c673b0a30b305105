"""A client that stops reading a response is cut off, and what it held is given back.

Once a client reads nothing, the socket's buffers fill and the server's ``send`` waits on flow
control with no end (uvicorn has no send timeout): a streamed answer would hold its work slot
(``WorkLimiter``) and its model stream for as long as the client keeps the connection open.
``SendTimeout`` bounds each ``send``; ``ClosingStreamingResponse`` makes sure the stream's
generator is closed (and its ``finally`` run) when that happens, not when the garbage
collector gets to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
from typing import Any

import anyio
from starlette.responses import StreamingResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger(__name__)


class SendTimeout:
    """ASGI middleware, outermost (around everything the server runs): a ``send`` that waits
    longer than ``timeout_s`` ends the request. The app unwinds through the error, and the
    connection is aborted: a close would wait for the full buffer to drain."""

    def __init__(self, app: ASGIApp, timeout_s: float) -> None:
        self.app, self.timeout_s = app, timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        timed_out = False

        async def timed_send(message: Message) -> None:
            nonlocal timed_out
            if timed_out:  # one stall ends the response: later sends fail at once
                raise TimeoutError("an earlier send timed out")
            try:
                async with asyncio.timeout(self.timeout_s):
                    await send(message)
            except TimeoutError:
                timed_out = True
                raise

        try:
            await self.app(scope, receive, timed_send)
        except Exception:  # the TimeoutError, or what a framework made of it
            if not timed_out:
                raise
        if timed_out:  # also when the app swallowed the error (the MCP SDK logs and returns)
            log.warning(
                "%s %s: the client read nothing for %g s (KNOTWORK_API_SEND_TIMEOUT_S); "
                "connection closed",
                scope.get("method"),
                scope.get("path"),
                self.timeout_s,
            )
            await _abort(send)


async def _abort(send: Send) -> None:
    """Reset the connection under uvicorn, whose ``send`` is a method of the request's cycle
    holding the transport; under another server the connection is left to it."""
    transport: Any = getattr(getattr(send, "__self__", None), "transport", None)
    if transport is None:
        return
    sock = transport.get_extra_info("socket")
    if sock is not None:  # a reset: the kernel drops the unsent megabytes at once
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()
    await asyncio.sleep(0)  # the server sees the connection lost before it would log an error


class ClosingStreamingResponse(StreamingResponse):
    """A StreamingResponse that closes its generator however the stream ends (a send timed
    out, the client went, an error): Starlette's leaves a paused one to the garbage
    collector, and with it whatever its ``finally`` gives back."""

    async def stream_response(self, send: Send) -> None:
        try:
            await super().stream_response(send)
        finally:
            if (aclose := getattr(self.body_iterator, "aclose", None)) is not None:
                with anyio.CancelScope(shield=True):
                    await aclose()
