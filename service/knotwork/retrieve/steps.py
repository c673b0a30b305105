"""How retrieval runs its steps: independent ones at once, each timed (the stages overlap, so
each timing is the step's own wall time)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class Clock:
    def __init__(self) -> None:
        self.timings: dict[str, float] = {}

    def lap(self, name: str, since: float) -> None:
        self.timings[name] = round((time.perf_counter() - since) * 1000, 2)

    async def timed(self, name: str, work: Awaitable[T]) -> T:
        """Await ``work`` and record how long it took under ``name`` (stages overlap)."""
        start = time.perf_counter()
        try:
            return await work
        finally:
            self.lap(name, start)


class Steps:
    """Steps started as tasks, each awaiting only what it needs; ``stop`` cancels those still
    running (a failed or abandoned retrieval leaves nothing behind)."""

    def __init__(self) -> None:
        self._tasks: list[asyncio.Task[Any]] = []

    def start(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        started = asyncio.create_task(work)
        self._tasks.append(started)
        return started

    def stop(self) -> None:
        for started in self._tasks:
            if not started.done():
                started.cancel()
            elif not started.cancelled():
                started.exception()  # retrieved: a failure already raised elsewhere
