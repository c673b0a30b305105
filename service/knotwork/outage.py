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
    at debug level), and one line when a try succeeds again. ``trouble``, ``until`` and
    ``back`` word a trouble other than being away (a model answering garbage)."""

    def __init__(
        self,
        what: str,
        remind_s: float | None = REMIND_S,
        *,
        trouble: str = "unavailable",
        until: str = "it is back",
        back: str = "reachable again",
    ) -> None:
        self.what = what
        self.remind_s = remind_s
        self.trouble, self.until, self.back = trouble, until, back
        self.since: float | None = None  # when the first failed try of this outage was
        self._said = 0.0

    def failed(self, exc: BaseException | str, waiting: str, fix: str = "") -> None:
        """A try failed on ``what`` being away (``exc``: why); ``waiting`` says what waits,
        ``fix`` what to do (with the warnings, not the debug lines)."""
        now = time.monotonic()
        fix = f"; {fix}" if fix else ""
        if self.since is None:
            self.since = self._said = now
            log.warning(
                "%s %s (%s); %s, tried again until %s%s",
                self.what,
                self.trouble,
                exc,
                waiting,
                self.until,
                fix,
            )
        elif self.remind_s is not None and now - self._said >= self.remind_s:
            self._said = now
            log.warning(
                "%s still %s after %.0f s (%s); %s%s",
                self.what,
                self.trouble,
                now - self.since,
                exc,
                waiting,
                fix,
            )
        else:
            log.debug("%s still %s (%s); %s", self.what, self.trouble, exc, waiting)

    def ended(self, after: str = "", back: str | None = None) -> None:
        """A try succeeded: an outage under way is over (``after``: what follows from it;
        ``back``: how it ended, when not by ``what`` answering again)."""
        if self.since is not None:
            took = time.monotonic() - self.since
            self.since = None
            log.info("%s %s after %.0f s%s", self.what, back or self.back, took, after)
