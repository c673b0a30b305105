"""Commands over a vault: ingest, calibrate, retry, watch, verify (its report: cli/verified.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Annotated

import typer

from knotwork import background
from knotwork.check.folder import another_folder
from knotwork.cli.app import (
    MAX_LISTED,
    app,
    console,
    progress_bar,
    with_core,
    writer_lease,
    writing,
)
from knotwork.cli.escaped import say
from knotwork.cli.lease_taken import take
from knotwork.cli.options import VaultPath
from knotwork.cli.printed import errors_put_back, retried
from knotwork.cli.stopped import SyncStopped, verify_stopped
from knotwork.cli.synced import (
    SyncSummary,
    calibrate_once,
    print_calibration,
    print_sync,
    sync_summary,
)
from knotwork.cli.watched import INGEST_WATCHED, WATCH_WATCHED, watched_advice
from knotwork.core import Core
from knotwork.errors import ConfigError, KnotworkError, VaultFolderError
from knotwork.ingest.ingestor import Ingestor
from knotwork.plural import plural
from knotwork.retrieve.calibrate import calibrate_vault
from knotwork.retrieve.relevance import Calibration

log = logging.getLogger(__name__)


@app.command()
def ingest(
    path: VaultPath = None,
    no_extract: Annotated[bool, typer.Option("--no-extract", help="structural facts only")] = False,
    new_folder: Annotated[
        bool,
        typer.Option(
            "--new-folder",
            help="PATH now holds the vault (moved, or mounted elsewhere): sync it although "
            "the vault's notes came from another folder, deleting the notes PATH lacks",
        ),
    ] = False,
) -> None:
    """Bring the graph in step with a whole vault, with a progress bar and a summary; exit 1
    when a file could not be ingested."""

    stage = SyncStopped()  # how far it got, said when a signal stops it or Neo4j goes away

    async def work(core: Core) -> tuple[SyncSummary, Calibration | None]:
        ingestor = Ingestor(core, root=path, extract_enabled=False if no_extract else None)
        with stage.unreachable_said(), progress_bar() as progress:  # on to the calibration
            async with writing(core, "cli-ingest", watched_advice(core, INGEST_WATCHED, path)):
                report = await stage.sync(ingestor, progress, new_folder)
            stage.synced = True
            summary = await sync_summary(core, report, ingestor.vault)
            return summary, await calibrate_once(core, ingestor.vault, summary, progress)

    async def refused(core: Core) -> None:
        from knotwork.watch.watcher import folder_to_follow

        # A folder missing (a typo) is said as such, not as a watcher's of another folder.
        folder_to_follow(path or core.settings.vault_path)
        await writer_lease(core, watched_advice(core, INGEST_WATCHED, path)).check_free()

    summary, calibration = with_core(
        work, models=True, first=refused, ready=True, stopped_said=stage.said
    )
    print_sync(summary)
    if calibration is not None:
        print_calibration(calibration)
    raise typer.Exit(1 if summary.report.errors else 0)


@app.command()
def calibrate() -> None:
    """Calibrate the relevance gate on the vault (KNOTWORK_VAULT_NAME): off-topic probe
    questions in the vault's languages set the cosine below which evidence is not relevant (run
    after changing the embedding model; ingest and watch do it on a vault not yet calibrated)."""

    async def work(core: Core) -> Calibration:
        with progress_bar() as progress:
            return await calibrate_vault(core, core.settings.vault_name, progress)

    print_calibration(with_core(work, models=True, ready=True))


@app.command()
def retry(
    errors: Annotated[
        bool,
        typer.Option(
            "--errors",
            help="first put back the chunks whose extraction failed for good (garbage "
            "answered, a prompt refused as too long), after changing the model or its context",
        ),
    ] = False,
) -> None:
    """Embed and extract the chunks left pending while a model was unavailable, pass after
    pass until none is left; exit 1 when some stay pending or failed (a model down or broken)."""

    from knotwork.errors import LeaseHeldError
    from knotwork.graph.lease import watches
    from knotwork.ingest.retry import Retried, errors_pending, retry_all
    from knotwork.watch.watcher import RETRY_PENDING_S

    watched = (
        f"The watcher finishes the pending chunks itself, every {RETRY_PENDING_S:.0f} s once "
        "the model answers, so there is nothing to do here"
    )

    async def work(core: Core) -> tuple[int, Retried]:
        ingestor = Ingestor(core)
        # Putting failed chunks back sets a flag that any retry reads, the watcher's too: no
        # write of notes, so it needs no lease.
        back = await errors_pending(ingestor.models) if errors else 0
        try:
            async with writing(core, "cli-retry", watched):
                with progress_bar() as progress:
                    return back, await retry_all(ingestor.models, progress)
        except LeaseHeldError as exc:
            if not errors:
                raise
            holder = exc.held_by  # as the take read it: a second read may find it gone
            if holder is None or not watches(holder):  # done without the lease: said first
                say(errors_put_back(back))
                raise
            say(
                f"a watcher holds the vault ({holder.get('holder')}); it extracts the "
                f"chunks put back within {RETRY_PENDING_S:.0f} s once the model answers"
            )
            return back, Retried()

    async def refused(core: Core) -> None:  # --errors puts chunks back under any holder
        if not errors:
            await writer_lease(core, watched).check_free()

    back, done = with_core(work, models=True, first=refused, ready=True)
    if errors:
        say(errors_put_back(back))
    did, left = retried(done)
    say(did)
    warnings = list(dict.fromkeys(done.warnings))  # a chunk postponed in two passes, said once
    for warning in warnings[:MAX_LISTED]:
        say(f"warning: {warning}", fg=typer.colors.YELLOW)
    if len(warnings) > MAX_LISTED:
        more = len(warnings) - MAX_LISTED
        say(f"… and {more} more {plural(more, 'warning')}", fg=typer.colors.YELLOW)
    if left is not None:
        say(left, fg=typer.colors.YELLOW)
    raise typer.Exit(1 if done.pending or done.failed else 0)


@app.command()
def watch(
    path: VaultPath = None,
    ready_file: Annotated[
        Path | None,
        typer.Option(
            "--ready-file",
            metavar="FILE",
            help="create FILE once the watcher holds the vault and begins its first sync "
            "(scripts/run starts the API then)",
        ),
    ] = None,
) -> None:
    """Follow the vault: reconcile, then keep the graph in step with every change."""
    import signal

    from knotwork.cli.printed import watch_stopped
    from knotwork.ingest.owed import Owed, owed
    from knotwork.watch.watcher import VaultWatcher, folder_to_follow

    async def work(core: Core) -> None:
        ingestor = Ingestor(core, root=path)
        watched = watched_advice(core, WATCH_WATCHED, ingestor.root)
        watcher = VaultWatcher(ingestor, writer_lease(core, watched))
        # The API's extraction pass waited out, as `ingest` waits for it (Ctrl-C cancels the
        # wait: its handler below is not set yet); the watcher's ``holding`` then renews it.
        await take(watcher.lease, watcher.status.report(watcher.queue_length()))
        loop = asyncio.get_running_loop()
        stopping = asyncio.Event()

        def stop(sig: signal.Signals) -> None:  # a second one ends the process at once
            loop.remove_signal_handler(sig)
            signal.signal(sig, signal.SIG_DFL)
            stopping.set()
            watcher.stop()

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop, sig)
        with progress_bar() as progress:
            ready = asyncio.Event()
            task = asyncio.create_task(watcher.run(progress, ready))
            if ready_file is not None and await _first(task, watcher.started):
                try:
                    ready_file.touch()
                except OSError as exc:  # never made, it would keep its reader waiting
                    watcher.stop()
                    await task
                    raise ConfigError(f"--ready-file {ready_file}: {exc.strerror}") from exc
            await _first(task, ready)
        if not task.done():
            if watcher.last_report is not None:  # the first sync's summary, then the watch
                finisher = (
                    "this watcher does them in the background, beside its writes, once the "
                    f"model answers (one not answering is asked again every "
                    f"{watcher.retry_s:.0f} s)"
                )
                summary = await sync_summary(core, watcher.last_report, ingestor.vault)
                print_sync(summary, finisher)
                for warning in watcher.last_report.own_warnings[MAX_LISTED:]:
                    log.warning("%s", warning)  # past the summary's list: not lost, logged
                owe = watcher.calibration.owe  # one not made now: the running watcher retries
                with progress_bar() as progress:  # a stop does not wait for its probes
                    done = await background.unless_set(
                        stopping, calibrate_once(core, ingestor.vault, summary, progress, owe)
                    )
                if done is not None and (calibration := done.result()) is not None:
                    print_calibration(calibration)
            if console().is_terminal:  # the model's work has a bar from now on, not lines
                watcher.model_work.shown = progress_bar
            say(f"watching {watcher.root} ({watcher.status.mode}); Ctrl-C stops")
        await task
        left = Owed()  # Neo4j away: the changes are said
        with contextlib.suppress(KnotworkError):  # read as its model work read what it left
            left = await owed(ingestor.models)
        for line in watch_stopped(watcher.root, len(watcher.pending), left):
            say(line)

    async def refused(core: Core) -> None:  # the watcher's own refusals at its start
        root = folder_to_follow(path or core.settings.vault_path)
        watched = watched_advice(core, WATCH_WATCHED, root)
        await writer_lease(core, watched).check_free()
        # Another vault's folder, as the first sync would refuse it: before --ready-file, so
        # scripts/run stops with it rather than start an API first.
        if (another := await another_folder(core, core.settings.vault_name, root)) is not None:
            raise VaultFolderError(another.refusal)

    with_core(work, models=True, first=refused, ready=True)


async def _first(task: asyncio.Task[None], event: asyncio.Event) -> bool:
    """Wait until ``event`` is set or ``task`` ends: whether the event was set."""
    waiting = asyncio.create_task(event.wait())
    try:
        await asyncio.wait([task, waiting], return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiting.cancel()
    return event.is_set()


@app.command()
def verify(
    path: VaultPath = None,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="each difference, and the raw canonical lines, as JSON"),
    ] = False,
) -> None:
    """Compare the graph with a fresh parse of the vault; exit 1 and list each note that
    differs, and how."""
    from knotwork.check.verify import synced_from, verify_vault_report
    from knotwork.cli.verified import Checked, print_checked

    async def work(core: Core) -> Checked:
        ingestor = Ingestor(core, root=path)
        checked = Checked(ingestor.root, named=path is not None)
        if ingestor.root is not None:  # another vault's folder: every note would differ
            checked.refused = await another_folder(core, ingestor.vault, ingestor.root)
        if checked.refused is None:
            with progress_bar() as progress:  # the fresh parse is a whole sync of the vault
                checked.found = await verify_vault_report(ingestor, progress)
            checked.elsewhere = await synced_from(ingestor)
        return checked

    # A stop: said (on stderr with --json), then the process ends.
    checked = with_core(work, ready=True, stopped_said=verify_stopped, stopped_err=as_json)
    raise typer.Exit(print_checked(checked, as_json))
