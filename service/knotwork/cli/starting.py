"""What a command says while it starts: the seconds between its call and its first output go to
Neo4j's first answer, the model clients (LlamaIndex's import, an in-process model) and the
schema. On a terminal (stderr), one line names the step under way, with a spinner and a clock,
and goes once the command's own progress or output comes; off a terminal (a pipe, a log file),
nothing, unless a step takes over ``SLOW_S``: then one log line names it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.console import Console

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

log = logging.getLogger(__name__)

SLOW_S = 10.0  # off a terminal, a step that runs longer is logged, once


class Starting:
    """The steps of one command's start, each named by ``step``; ``done`` takes the line away
    (the command's progress bar or output comes next). Idempotent, and safe to leave to
    ``starting``'s exit."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._line: Progress | None = None  # on a terminal, once the first step is named
        self._task: TaskID | None = None
        self._slow: threading.Timer | None = None  # off a terminal: the step's one log line
        self._over = False

    def step(self, what: str) -> None:
        """``what`` is under way now ("connecting to Neo4j at …"): drawn at once, its clock
        from zero, or, off a terminal, logged only if it is still under way ``SLOW_S`` on."""
        if self._over:
            return
        if not self._console.is_terminal:
            self._cancel()
            # A thread: the step may hold the event loop (a model client built in it).
            self._slow = threading.Timer(SLOW_S, log.info, ("still %s after %.0f s", what, SLOW_S))
            self._slow.daemon = True
            self._slow.start()
            return
        if self._line is None or self._task is None:
            self._line = _status_line(self._console)
            self._line.start()
            self._task = self._line.add_task(what, total=None)
        else:
            self._line.reset(self._task, total=None, description=what)
        self._line.refresh()  # a step shorter than a redraw is still seen

    def done(self) -> None:
        """The start is over: the line is cleared (or no late log line comes)."""
        self._over = True
        self._cancel()
        if self._line is not None:
            self._line.stop()
            self._line = None

    def _cancel(self) -> None:
        if self._slow is not None:
            self._slow.cancel()
            self._slow = None


def _status_line(console: Console) -> Progress:
    """A spinner, the step and its clock, cleared when stopped. stdout is left alone: a
    command's output never goes through the status (a pipe gets exactly what it got)."""
    from rich.progress import Progress, TextColumn

    from knotwork.cli.app import running_columns  # app.py imports this module

    turning, clock = running_columns()
    columns = (turning, TextColumn("{task.description}"), clock)
    return Progress(*columns, console=console, transient=True, redirect_stdout=False)


@contextmanager
def starting(console: Console) -> Iterator[Starting]:
    """A command's start on ``console`` (stderr), its status gone at the block's end whatever
    ends it (an error is printed after it, not into it)."""
    start = Starting(console)
    try:
        yield start
    finally:
        start.done()
