"""Progress notifications of a long tool call (``ask`` with a slow model, a large ``sync``).

A client times a request out (60 s is common) unless progress comes; it asks for progress by
sending a ``progressToken``, and without one the SDK sends nothing. What the work says is sent
by one task, in order, looking every ``POLL_S`` for the latest of each step (a sync of
thousands of notes is not thousands of messages, yet a step done between two looks still says
its last count), and the last said again every ``HEARTBEAT_S`` while nothing new comes:
a model thinking before its first token, one chunk extracted for a minute. The MCP spec wants
``progress`` to grow with each notification, and a sync's steps each count in their own unit
(files read, chunks embedded, notes written, chunks extracted): the message says the step and
its count (``writing notes: 12 of 40: …``). A call of a known size (``reporting(sized=True)``,
a sync: its notes to write) sends it as numbers too, ``progress`` the notes written and
``total`` their count once the sync knows it; a notification that writes no note (another
step's, a heartbeat) adds ``NUDGE`` so that ``progress`` still grows, kept under the total
until the call ends, which sends the total itself. Any other call's ``progress`` counts its
notifications, with no total.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import NamedTuple

from knotwork import background
from knotwork.ingest.changes import SyncStep
from knotwork.mcp.common import ServedContext

log = logging.getLogger(__name__)

HEARTBEAT_S = 10.0  # well within a client's usual 60 s request timeout
POLL_S = 0.25
SIZED = {SyncStep.PARSING, SyncStep.WRITING}  # a sync's steps counted in its notes to write
NUDGE = 1e-6  # a sized call's growth by a notification that writes nothing
# (message, done, total): a sized step's counts, None for any other message.
Told = tuple[str, int | None, int | None]


class Sent(NamedTuple):
    """A notification as sent."""

    message: str
    progress: float
    total: float | None


class Progress:
    """What a tool call is doing, told synchronously (a sync's progress callback is, from its
    worker thread), sent by ``reporting``'s task."""

    def __init__(self, *, sized: bool = False) -> None:
        self._lock = threading.Lock()
        # The latest message of each step told since the last look, by step, the step told
        # last at the end: a sync's steps take turns batch after batch, each sent once a look.
        self._unsent: dict[str, Told] = {}
        self._sized = sized
        self._sent = 0  # the notifications sent
        # The last notification: its message (said again as the heartbeat), ``progress`` and
        # ``total`` (a sized call's, once known: kept by the notifications after it).
        self._last: Sent | None = None
        self._ended = False  # the call's work is done: its total may be sent
        self._at = 0.0  # when the last was sent, on the loop's clock
        self._gone = False  # the client could not be told: nothing more is tried

    def tell(self, message: str, done: int | None = None, total: int | None = None) -> None:
        """``done`` of ``total``: the call's size, counted (a sized call's)."""
        step = _step(message)
        with self._lock:
            self._unsent.pop(step, None)
            self._unsent[step] = (message, done, total)

    def counted(self, done: int, total: int, what: str) -> None:
        """A sync's progress (``ingest.changes.Progress``): ``what`` is ``step: item``."""
        step, _, item = what.partition(": ")
        message = f"{step}: {done} of {total}" + (f": {item}" if item else "")
        if SyncStep.of(what) in SIZED and total > 0:
            self.tell(message, done, total)
        else:
            self.tell(message)

    def _numbers(self, done: int | None, total: int | None) -> tuple[float, float | None]:
        """The next notification's ``progress`` and ``total``: ever growing."""
        if not self._sized:
            return float(self._sent), None
        last = self._last
        grown = last.progress + NUDGE if last is not None else 0.0
        if done is None or total is None:  # no note written: a nudge over the last
            return grown, last.total if last is not None else None
        # Under the total while the call runs: what follows the last note (links, linking
        # similar entities) still grows it; the call's end sends the total (``finish``).
        at = float(done) if self._ended else min(float(done), total - 0.5)
        return max(at, grown), float(total)

    def _take(self) -> list[Told]:
        with self._lock:
            taken, self._unsent = list(self._unsent.values()), {}
        return taken

    def _put_back(self, messages: list[Told]) -> None:
        """Messages taken but not sent (the call ended as they were): before those told since,
        unless a later one of their step was."""
        with self._lock:
            back = {_step(m[0]): m for m in messages if _step(m[0]) not in self._unsent}
            self._unsent = {**back, **self._unsent}

    async def send(self, ctx: ServedContext, heartbeat_s: float, poll_s: float) -> None:
        """Each step's latest message when new ones came, the last one again after
        ``heartbeat_s`` of quiet."""
        loop = asyncio.get_running_loop()
        while not self._gone:
            due = self._take()
            if not due and self._last is not None and loop.time() - self._at >= heartbeat_s:
                due = [(self._last.message, None, None)]  # its numbers nudged, as a step's
            await self._report(ctx, due)
            await asyncio.sleep(poll_s)

    async def finish(self, ctx: ServedContext) -> None:
        """What was told since the last look, before the call's result: its last counts; a
        sized call's last notification says all of it is done."""
        await self._report(ctx, self._take())
        self._ended = True
        last = self._last
        if last is not None and last.total is not None and last.progress < last.total:
            total = int(last.total)
            await self._report(ctx, [(last.message, total, total)])

    async def _report(self, ctx: ServedContext, messages: list[Told]) -> None:
        for i, told in enumerate(messages):
            if self._gone:
                return
            self._sent += 1
            self._last = Sent(told[0], *self._numbers(told[1], told[2]))
            self._at = asyncio.get_running_loop().time()
            try:
                await ctx.report_progress(self._last.progress, self._last.total, told[0])
            except asyncio.CancelledError:  # the call ended meanwhile: ``finish`` sends the rest
                self._put_back(messages[i:])
                raise
            except Exception as exc:  # a client gone: the call's own result says the rest
                log.debug("progress not sent: %s: %s", type(exc).__name__, exc)
                self._gone = True


def _step(message: str) -> str:
    """``writing notes`` of ``writing notes: 3 of 40: a.md``; a stage's whole message else."""
    return message.partition(": ")[0]


@asynccontextmanager
async def reporting(
    ctx: ServedContext, first: str, *, sized: bool = False
) -> AsyncIterator[Progress]:
    """A ``Progress`` for this call, ``first`` sent at once; its task ends with the call.
    ``sized``: the call tells its size (a sync's notes), sent as ``progress`` and ``total``."""
    progress = Progress(sized=sized)
    progress.tell(first)
    sending = asyncio.create_task(progress.send(ctx, HEARTBEAT_S, POLL_S))
    try:
        yield progress
    finally:
        await background.stop(sending)
    await progress.finish(ctx)
