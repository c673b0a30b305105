"""Progress notifications of a long tool call (``ask`` with a slow model, a large ``sync``).

A client times a request out (60 s is common) unless progress comes; it asks for progress by
sending a ``progressToken``, and without one the SDK sends nothing. What the work says is sent
by one task, in order, looking every ``POLL_S`` for the latest (a sync of thousands of notes
is not thousands of messages), and said again every ``HEARTBEAT_S`` while nothing new comes:
a model thinking before its first token, one chunk extracted for a minute. The MCP spec wants
``progress`` to grow with each notification, and a sync's steps each count in their own unit
(files read, chunks embedded, notes written, chunks extracted), so ``progress`` counts the
notifications and the message says the step and its count: ``writing notes: 12 of 40: …``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from knotwork import background
from knotwork.mcp.common import ServedContext

log = logging.getLogger(__name__)

HEARTBEAT_S = 10.0  # well within a client's usual 60 s request timeout
POLL_S = 0.25


class Progress:
    """What a tool call is doing, told synchronously (a sync's progress callback is), sent by
    ``reporting``'s task."""

    def __init__(self) -> None:
        self.message: str | None = None
        self.told = 0  # how many messages were told: a new one since the last sent

    def tell(self, message: str) -> None:
        self.message = message
        self.told += 1

    def counted(self, done: int, total: int, what: str) -> None:
        """A sync's progress (``ingest.changes.Progress``): ``what`` is ``step: item``."""
        step, _, item = what.partition(": ")
        self.tell(f"{step}: {done} of {total}" + (f": {item}" if item else ""))

    async def send(self, ctx: ServedContext, heartbeat_s: float, poll_s: float) -> None:
        """The latest message when a new one came, the last one again after ``heartbeat_s``
        of quiet."""
        loop = asyncio.get_running_loop()
        sent, seen, quiet_since = 0, 0, loop.time()
        while True:
            if self.message is not None and (
                self.told != seen or loop.time() - quiet_since >= heartbeat_s
            ):
                sent, seen, quiet_since = sent + 1, self.told, loop.time()
                try:
                    await ctx.report_progress(sent, None, self.message)
                except Exception as exc:  # a client gone: the call's own result says the rest
                    log.debug("progress not sent: %s: %s", type(exc).__name__, exc)
                    return
            await asyncio.sleep(poll_s)


@asynccontextmanager
async def reporting(ctx: ServedContext, first: str) -> AsyncIterator[Progress]:
    """A ``Progress`` for this call, ``first`` sent at once; its task ends with the call."""
    progress = Progress()
    progress.tell(first)
    sending = asyncio.create_task(progress.send(ctx, HEARTBEAT_S, POLL_S))
    try:
        yield progress
    finally:
        await background.stop(sending)
