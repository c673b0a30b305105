"""The one ``app`` every command registers on, and what the commands share: logging set up at
the entry point, errors turned into a message and an exit code, a core per command (stopped by
SIGTERM or SIGHUP as by Ctrl-C), the vault's lease for commands that write, a progress bar."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import re
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console

from knotwork.cli.escaped import escaped, say
from knotwork.cli.helptext import App
from knotwork.cli.lease_taken import take
from knotwork.cli.logs import install_log_filters, terminal_log
from knotwork.cli.starting import start_steps, starting
from knotwork.core import Core, open_core
from knotwork.errors import (
    ConfigError,
    EmptyVaultError,
    FilterError,
    KnotworkError,
    NoteNotFoundError,
    VaultFolderError,
    VaultPathError,
    VaultUnavailableError,
)
from knotwork.graph.lease import WATCHED, Lease, Watched, holding
from knotwork.redact import redact
from knotwork.settings import get_settings

if TYPE_CHECKING:
    from rich.progress import ProgressColumn

app = App(
    help="Knotwork: a Markdown vault as a live knowledge graph in Neo4j.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

log = logging.getLogger(__name__)
T = TypeVar("T")
MAX_LISTED = 30  # warnings and unresolved links printed before "… and N more"


@functools.cache
def console() -> Console:
    """The terminal the logs and the progress bar share (stderr): a log line is printed above
    the bar instead of breaking it."""
    return Console(stderr=True)


@app.callback()
def _main(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="log at debug level")] = False,
) -> None:
    level = logging.DEBUG if verbose else logging.INFO
    if console().is_terminal:  # logs print above the progress bar, which only a terminal shows
        handler = terminal_log(console())
        logging.basicConfig(level=level, format="%(name)s: %(message)s", handlers=[handler])
    else:  # a log file or a pipe: one plain line per record
        logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for noisy in ("httpx", "neo4j"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    install_log_filters()


NOT_FOUND = 3  # exit code: no such note, nothing matched, or notes that do not cover it


def fail(exc: KnotworkError) -> typer.Exit:
    say(f"error: {redact(str(exc))}", fg=typer.colors.RED, err=True)
    # 2: the user can fix the call or the settings; 3: nothing there; 1: the service failed.
    if isinstance(exc, NoteNotFoundError | EmptyVaultError):
        return typer.Exit(NOT_FOUND)
    usage = ConfigError | VaultPathError | FilterError | VaultUnavailableError | VaultFolderError
    return typer.Exit(2 if isinstance(exc, usage) else 1)


# Signals that stop a command as Ctrl-C does (asyncio cancels the running task on SIGINT), so
# what it holds is given back on the way out: the vault's lease, verify's scratch vault. Left to
# their default, they ended the process where it stood (`timeout`, `docker stop`, systemd, a
# closed terminal).
STOPPING = (signal.SIGTERM, signal.SIGHUP)


def _cancel_on_signals(
    task: asyncio.Task[Any], received: list[signal.Signals], sigint: bool = False
) -> None:
    """Cancel ``task`` on a STOPPING signal (and SIGINT, with ``sigint``), noted in
    ``received``. A command that handles one itself (``watch``) replaces this handler; one the
    process was started ignoring (nohup's SIGHUP) stays ignored. Only the main thread takes
    signals (a test may run a command in another)."""
    if threading.current_thread() is not threading.main_thread():
        return
    loop = asyncio.get_running_loop()

    def stop(sig: signal.Signals) -> None:
        received.append(sig)
        loop.remove_signal_handler(sig)  # a second one ends the process at once
        signal.signal(sig, signal.SIG_DFL)  # SIGINT's would be Python's KeyboardInterrupt
        task.cancel()

    for sig in (*STOPPING, signal.SIGINT) if sigint else STOPPING:
        # SIGINT's handler is asyncio's (a KeyboardInterrupt once the task has ended).
        if signal.getsignal(sig) is not signal.SIG_IGN and (
            sig == signal.SIGINT or signal.getsignal(sig) is signal.SIG_DFL
        ):
            loop.add_signal_handler(sig, stop, sig)


def _end_by(sig: signal.Signals) -> NoReturn:
    """End the process by ``sig`` once the command has cleaned up: its caller (a shell,
    `timeout`, systemd) sees it stopped by that signal, as it would have without the cleanup."""
    with contextlib.suppress(OSError):  # a terminal already closed (SIGHUP)
        sys.stdout.flush()
        sys.stderr.flush()
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)
    raise typer.Exit(128 + sig)  # only if the signal is blocked


def with_core(
    work: Callable[[Core], Awaitable[T]],
    *,
    models: bool = False,
    first: Callable[[Core], Awaitable[None]] | None = None,
    ready: bool = False,
    connect: bool = True,
    stopped_said: Callable[[], str] | None = None,
    stopped_err: bool = False,
) -> T:
    """Run ``work`` with an open core; KnotworkErrors become a message and a non-zero exit.
    SIGTERM and SIGHUP cancel it, as Ctrl-C does, and then end the process.

    Before ``work``, the start's steps (cli/starting.start_steps), each named on a terminal as
    it runs: Neo4j's first answer (``connect``), the model clients, the schema.
    ``first``: the refusals that need no model (no vault folder, the vault's lease held by
    another writer), before the model clients are built: said at once, not seconds later.
    ``models``: the command calls the models, so their clients are built first and a setting
    that cannot work (e.g. the in-process model's vector size) stops it before any work. The
    others never import LlamaIndex.
    ``ready``: the schema applied and the manifest checked (``Core.ensure_ready``), after the
    model clients (a setting they refuse writes no manifest).
    ``connect=False``: the work makes Neo4j's first query and reports its failure (doctor).
    ``stopped_said``: where things stand when a signal (Ctrl-C too) stopped the work, said before
    the process ends by it: a long command's user learns what was done and what to run;
    on stderr with ``stopped_err`` (``--json``: stdout stays the JSON a script reads, or empty).
    """
    stopped: list[signal.Signals] = []

    async def run() -> T:
        task = asyncio.current_task()
        assert task is not None
        _cancel_on_signals(task, stopped, sigint=stopped_said is not None)
        settings = get_settings()
        steps = start_steps(settings, first=first, models=models, ready=ready, connect=connect)
        with starting(console()) as start:
            async with open_core(settings) as core:
                for step in steps:
                    start.step(step.what)
                    await step.run(core)
                start.done()
                return await work(core)

    try:
        return asyncio.run(run())
    except KnotworkError as exc:
        raise fail(exc) from exc  # said before the process ends, when it was stopped
    finally:
        if stopped:
            if stopped_said is not None:
                with contextlib.suppress(OSError):  # a terminal already closed (SIGHUP)
                    say(stopped_said(), err=stopped_err)
            _end_by(stopped[0])


def writer_lease(core: Core, watched: Watched = WATCHED) -> Lease:
    """The lease of the configured vault for a command that writes it; ``watched``: what the
    command's refusal advises while a watcher holds the vault."""
    return Lease(core.store, core.settings.vault_name, core.settings.lease_ttl_s, watched=watched)


@contextlib.asynccontextmanager
async def writing(core: Core, mode: str, watched: Watched = WATCHED) -> AsyncIterator[Lease]:
    """The vault's lease for a command that writes the graph but does not watch the files:
    refused (LeaseHeldError, exit 1) while a watcher or another writer holds it; the API's
    background extraction, which gives it back between passes, waited out (cli/lease_taken)."""
    lease, status = writer_lease(core, watched), {"mode": mode, "watches": False}
    await take(lease, status)
    async with holding(lease, status) as held:
        yield held


PROGRESS_EVERY_S = 10.0
SHOWN_WIDTH = 40  # the bar's text before the bar itself


def _progress_lines() -> Callable[[int, int, str], None]:
    """Off a terminal: a line every ``PROGRESS_EVERY_S`` at most, and the end of a step a line
    said (its name before ": ", less its numbers, and its total), so a long step is seen to
    finish. The ends of the steps no line said are not said: a sync's every unit of notes
    embedded would be a line."""
    started = last = time.monotonic()
    said: tuple[str, int] | None = None  # the step the last line said, until it ends

    def progress(done: int, total: int, what: str) -> None:
        nonlocal last, said
        now = time.monotonic()
        step = (re.sub(r"\d", "", what.partition(": ")[0]), total)  # retry's "embedded 8/9"
        ends = done == total and step == said
        if now - last >= PROGRESS_EVERY_S or ends:
            last, said = now, None if ends else step
            # ``what`` names the step and so what is counted (files read, chunks embedded,
            # notes written, chunks extracted, questions asked): never notes for all.
            log.info("%s (%d of %d, %.0f s)", what, done, total, now - started)

    return progress


def shown(what: str, width: int = SHOWN_WIDTH) -> str:
    """``what`` cut to ``width`` for the bar, keeping the step it names ("writing notes: …")
    and the end of the path after it, which tells notes apart better than their folders."""
    if len(what) <= width:
        return what
    step, sep, detail = what.partition(": ")
    room = width - len(step) - len(sep) - 1
    if sep and room >= 8:
        return f"{step}{sep}…{detail[-room:]}"
    return "…" + what[-(width - 1) :]


def running_columns() -> tuple[ProgressColumn, ProgressColumn]:
    """A spinner and a clock that go on at "N of N" too: a step that has counted all it counts
    may still run (the write after the last chunk embedded, the entities linked after the last
    note), and rich stops both once a count is full."""
    from datetime import timedelta

    from rich.console import RenderableType
    from rich.progress import SpinnerColumn, Task, TimeElapsedColumn
    from rich.text import Text

    class Spinner(SpinnerColumn):
        def render(self, task: Task) -> RenderableType:
            return self.spinner.render(task.get_time())

    class Clock(TimeElapsedColumn):
        def render(self, task: Task) -> Text:
            elapsed = timedelta(seconds=max(0, int(task.elapsed or 0)))
            return Text(str(elapsed), style="progress.elapsed")

    return Spinner(), Clock()


@contextmanager
def progress_bar() -> Iterator[Callable[[int, int, str], None]]:
    """A terminal progress bar for long syncs; yields the callback that moves it. Its spinner
    and clock go on while a step takes long between two moves (a model on a large note).
    Where stderr is no terminal (compose's logs, a file), a log line every
    ``PROGRESS_EVERY_S`` instead."""
    from rich.markup import escape as markup_escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    if not console().is_terminal:
        yield _progress_lines()
        return
    spinner, clock = running_columns()
    with Progress(
        spinner,
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        clock,
        console=console(),
        transient=True,
    ) as bar:
        task = bar.add_task("reading the vault", total=None)

        def progress(done: int, total: int, what: str) -> None:
            # A note's path: its control characters escaped, and rich markup in it shown as
            # written ("[/x]" in a file name stopped the sync with a MarkupError).
            described = markup_escape(shown(escaped(what)))
            bar.update(task, completed=done, total=total, description=described)

        yield progress
