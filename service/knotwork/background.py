"""Background tasks of the long-running services (API, watcher, MCP server), stopped one way."""

from __future__ import annotations

import asyncio
from typing import Any


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
