"""A server start that failed because Neo4j could not be reached, tried again by tool calls.

A desktop client starts the server at login, often before Neo4j is up: the start is retried on
the next tool call (not more often than every ``RETRY_AFTER_S``) and the tools are served once
it succeeds. Any other failure (settings, credentials, a manifest naming another embedding
model) is fixed until the server is restarted: trying again would not change it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from mcp.server.mcpserver.exceptions import ToolError

from knotwork.errors import GraphAuthError, GraphUnavailableError, KnotworkError
from knotwork.redact import redact

if TYPE_CHECKING:
    from knotwork.mcp.common import Served

log = logging.getLogger(__name__)

RETRY_AFTER_S = 5.0


def retried(exc: KnotworkError) -> bool:
    """Whether a failed start is worth another try: Neo4j down or busy, not refusing us."""
    return isinstance(exc, GraphUnavailableError) and not isinstance(exc, GraphAuthError)


def reason_of(exc: KnotworkError) -> str:
    return redact(f"{type(exc).__name__}: {exc}")


class LateStart:
    """The start, tried again by ``attempt`` until it opens or fails for another reason."""

    def __init__(self, start: Callable[[], Awaitable[Served]], failure: str) -> None:
        self._start = start
        self.failure = failure
        self.state: Served | None = None
        self.fixed = False  # failed for a reason another try would not change
        self._tried_at = time.monotonic()
        self._lock = asyncio.Lock()

    async def attempt(self) -> None:
        """Open the core unless it is open, the failure is fixed, or the last try was too
        recent; concurrent calls share one try."""
        async with self._lock:
            if self.state is not None or self.fixed:
                return
            if time.monotonic() - self._tried_at < RETRY_AFTER_S:
                return
            try:
                self.state = await self._start()
            except KnotworkError as exc:
                self.failure, self.fixed = reason_of(exc), not retried(exc)
                log.error("the MCP server still cannot serve its tools: %s", self.failure)
            finally:
                self._tried_at = time.monotonic()

    def served(self) -> Served:
        """The opened state, else this call's tool error."""
        if self.state is not None:
            return self.state
        if self.fixed:
            raise ToolError(f"the Knotwork MCP server could not start: {self.failure}")
        raise ToolError(
            f"the Knotwork MCP server could not start: {self.failure} — the server tries "
            f"again on the next tool call (at most every {RETRY_AFTER_S:g} s)"
        )
