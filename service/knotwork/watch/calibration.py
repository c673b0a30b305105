"""The relevance calibration a running watcher still owes: its first sync could not make it
(the embedding model down for the probes, or chunks still waiting for their embedding), and
the watcher runs on for days. It is tried again beside the writes, at most every
``RETRY_S`` (a model that stays down costs one probe a minute, not one per event), until it
is made, another process made it, or the vault turns out to hold no text to calibrate on.
"""

from __future__ import annotations

import asyncio
import logging
import time

from knotwork import background
from knotwork.core import Core
from knotwork.errors import KnotworkError, ModelUnavailableError
from knotwork.ingest import owed
from knotwork.retrieve.calibrate import calibrate_owed

log = logging.getLogger(__name__)

RETRY_S = 60.0  # the least time between two tries of an owed calibration


class OwedCalibration:
    """Whether the watcher owes its vault's calibration, and the try under way, if any."""

    def __init__(self, core: Core, vault: str) -> None:
        self.core, self.vault = core, vault
        self.retry_s = RETRY_S
        self.owed = False
        self._next_at = 0.0  # monotonic time of the next try
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def owe(self) -> None:
        """The first sync left the vault uncalibrated: tried again once ``retry_s`` is over."""
        self.owed, self._next_at = True, time.monotonic() + self.retry_s

    def poll(self) -> None:
        """At each pass of the watcher's loop: a try started when one is owed and due."""
        if not self.owed or self.running or time.monotonic() < self._next_at:
            return
        self._next_at = time.monotonic() + self.retry_s
        self._task = asyncio.create_task(self._attempt())

    async def _attempt(self) -> None:
        try:
            tried = await calibrate_owed(self.core, self.vault, self._pending, _still_down)
        except KnotworkError as exc:  # Neo4j away: tried again, as the model is
            log.debug("relevance gate not calibrated yet: %s", exc)
            return
        except Exception:  # a bug, not an outage: said once, with its trace, not tried again
            self.owed = False
            log.exception("relevance gate not calibrated; run `knotwork calibrate` to retry")
            return
        self.owed = tried.owed
        if (made := tried.made) is not None:
            log.info(
                "relevance gate calibrated: floor %.2f for %s from %d probe questions",
                made.floor,
                made.embed_model,
                made.probes,
            )

    async def _pending(self) -> bool:
        """Chunks still wait for their embedding, as the graph says now (the watcher embeds
        them beside its writes, after the sync whose summary the CLI read)."""
        return bool((await owed.read(self.core.store, self.vault, ("embedding",))).embeddings)

    async def stop(self) -> None:
        """The try under way cancelled with the follow; one still owed is tried in the next."""
        await background.stop(self._task)
        self._task = None


def _still_down(exc: ModelUnavailableError) -> None:
    """The first sync's warning said so already: not said again every minute."""
    log.debug("relevance gate still not calibrated: %s", exc)
