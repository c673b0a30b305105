"""The watcher's model work, beside its writes: the pending chunks embedded and extracted in a
background task, so a slow chat model (a minute a chunk on a CPU) never holds the next change
out of the graph. Each change written asks for a pass, and so does every ``RETRY_PENDING_S``
(chunks a model down left pending); a pass asked for while one runs follows it, since the
running one read its chunks before the last writes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from knotwork import background

log = logging.getLogger(__name__)

MODEL_PASS = 64  # pending chunks read per pass: the newest changes' chunks join soon


class ModelWork:
    """Passes of ``retry`` (chunks done, for at most so many chunks) run one at a time."""

    def __init__(self, retry: Callable[[int], Awaitable[int]]) -> None:
        self._retry = retry
        self._task: asyncio.Task[None] | None = None
        self._again = False  # chunks written since the running pass read its own

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def wanted(self) -> None:
        """A pass now, unless one runs: then another after it."""
        if self.running:
            self._again = True
        else:
            self._again = False
            self._task = asyncio.create_task(self._passes())

    async def stop(self) -> None:
        """End the work (at the end of the lease): what it had not done stays pending."""
        task, self._task = self._task, None
        await background.stop(task)

    async def _passes(self) -> None:
        """Pass after pass until one does nothing (none left, the model down or in its
        back-off) and none was asked for meanwhile."""
        try:
            while True:
                self._again = False
                if not (await self._retry(MODEL_PASS) or self._again):
                    return
        except Exception:  # a bug: said, and the next change or period starts a pass again
            log.exception("the model's work on pending chunks failed")
