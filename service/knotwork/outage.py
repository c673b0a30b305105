"""An outage said once, not once a try: the watcher and the background model work try Neo4j
(or the model) again every few seconds while it is away, and a log line per try buries
everything else in it."""

from __future__ import annotations

import logging
import time

log = logging.getLogger(__name__)

REMIND_S = 60.0  # while an outage lasts, it is said again this often


class Outage:
    """``what`` (Neo4j, the model) out of reach: a warning when the first try fails, a
    reminder every ``remind_s`` while tries keep failing (None: none, each try after the first
    at debug level), and one line when a try succeeds again."""

    def __init__(self, what: str, remind_s: float | None = REMIND_S) -> None:
        self.what = what
        self.remind_s = remind_s
        self.since: float | None = None  # when the first failed try of this outage was
        self._said = 0.0

    def failed(self, exc: BaseException | str, waiting: str) -> None:
        """A try failed on ``what`` being away (``exc``: why); ``waiting`` says what waits."""
        now = time.monotonic()
        if self.since is None:
            self.since = self._said = now
            log.warning(
                "%s unavailable (%s); %s, tried again until it is back", self.what, exc, waiting
            )
        elif self.remind_s is not None and now - self._said >= self.remind_s:
            self._said = now
            log.warning(
                "%s still unavailable after %.0f s (%s); %s",
                self.what,
                now - self.since,
                exc,
                waiting,
            )
        else:
            log.debug("%s still unavailable (%s); %s", self.what, exc, waiting)

    def ended(self, after: str = "") -> None:
        """A try succeeded: an outage under way is over (``after``: what follows from it)."""
        if self.since is not None:
            took = time.monotonic() - self.since
            self.since = None
            log.info("%s reachable again after %.0f s%s", self.what, took, after)
