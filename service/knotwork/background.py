"""Background tasks of the long-running services (API, watcher, MCP server), stopped one way."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


async def stop(*tasks: asyncio.Task[Any] | None) -> None:
    """Cancel the tasks and wait until all have ended, so nothing of them runs on after their
    owner closes the core they use. ``None`` (a task never started) is skipped. A task's own
    failure (not its cancellation) is raised once all have ended: those tasks catch and log the
    failures they expect, so what reaches here is a bug to see. A cancellation of the caller
    itself is not swallowed."""
    started = [task for task in tasks if task is not None]
    for task in started:
        task.cancel()
    ended = await asyncio.gather(*started, return_exceptions=True)
    for outcome in ended:
        if isinstance(outcome, BaseException) and not isinstance(outcome, asyncio.CancelledError):
            raise outcome


async def unless_set(event: asyncio.Event, work: Coroutine[Any, Any, T]) -> asyncio.Task[T] | None:
    """Run ``work`` until it ends, or until ``event`` is set first: then it is cancelled (and
    has ended when this returns), and None. Else its task, ended; its failure is raised."""
    task = asyncio.ensure_future(work)
    waiting = asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait([task, waiting], return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiting.cancel()
        ended = task.done()
        if not ended:
            await stop(task)
    if not ended:
        return None
    task.result()
    return task


async def sleep_or(event: asyncio.Event, seconds: float) -> None:
    """Sleep ``seconds``, or less when ``event`` is set first."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), timeout=seconds)
