"""A bound on the retrievals and answers that run at once, so a burst waits its turn (or is
told to come back) instead of exhausting Neo4j's connection pool and failing with 500s.

Each retrieval runs several queries at once, so ``KNOTWORK_API_MAX_CONCURRENT`` of them stay
well inside the driver's pool of 100 connections. Up to ``KNOTWORK_API_MAX_WAITING`` more
wait for a slot; beyond that a request is refused at once with ``ServerBusyError`` (REST: 503
and ``Retry-After``; MCP: a tool error). The REST API and the MCP server each keep one.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from knotwork.errors import ServerBusyError
from knotwork.plural import counted, plural

RETRY_AFTER_S = 1


class WorkLimiter:
    def __init__(self, running: int, waiting: int) -> None:
        self.running, self.waiting = running, waiting
        self._slots = asyncio.Semaphore(running)
        self._queued = 0

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one of the running slots for the block; 503 when the queue is full."""
        if self._slots.locked():
            if self._queued >= self.waiting:
                raise ServerBusyError(
                    f"busy: {counted(self.running, 'request')} "
                    f"{plural(self.running, 'is', 'are')} running and {self._queued} waiting; "
                    f"retry in {RETRY_AFTER_S} s"
                )
            self._queued += 1
            try:
                await self._slots.acquire()
            finally:
                self._queued -= 1
        else:
            await self._slots.acquire()
        try:
            yield
        finally:
            self._slots.release()
