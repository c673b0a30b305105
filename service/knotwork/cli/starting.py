"""What a command says while it starts: the seconds between its call and its first output go to
Neo4j's first answer, the model clients (LlamaIndex's import, an in-process model) and the
schema. On a terminal (stderr), one line names the step under way, with a spinner and a clock,
and goes once the command's own progress or output comes; off a terminal (a pipe, a log file),
nothing, unless a step takes over ``SLOW_S``: then one log line names it. Every command that
connects takes its steps from ``start_steps``, so each names the same steps in the same order."""

from __future__ import annotations

import logging
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console

from knotwork.graph import schema
from knotwork.redact import redact
from knotwork.settings import Settings

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from knotwork.core import Core

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


@dataclass(frozen=True)
class Step:
    """One step of a command's start: what the status line names while ``run`` runs."""

    what: str
    run: Callable[[Core], Awaitable[object]]


def start_steps(
    settings: Settings,
    *,
    first: Callable[[Core], Awaitable[None]] | None = None,
    models: bool = False,
    ready: bool = False,
    connect: bool = True,
) -> list[Step]:
    """The steps of a command's start, in the one order every command names them: Neo4j's
    first answer (after ``first``'s refusals, which need no model), the model clients
    (``models``), the schema (``ready``). ``connect=False``: no step, the command's work makes
    Neo4j's first query and reports its failure itself (``doctor``)."""

    async def connected(core: Core) -> None:
        if first is not None:
            await first(core)
        # Neo4j's answer whether or not ``first`` asked it anything (retry --errors does not):
        # a Neo4j down (or too old) is met under this step's name, not under the next one's.
        await schema.check_server(core.store)

    async def loaded(core: Core) -> None:
        core.models.load()  # holds the loop: starting's log line comes from a thread

    async def applied(core: Core) -> None:
        await core.ensure_ready()

    steps = []
    if connect:
        steps.append(Step(f"connecting to Neo4j at {redact(settings.neo4j_uri)}", connected))
    if models:
        chat = f"the chat model {settings.llm_model}"
        steps.append(Step(f"loading the embedding model {settings.embed_model} and {chat}", loaded))
    if ready:
        steps.append(Step("applying the schema", applied))
    return steps
