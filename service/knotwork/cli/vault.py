"""Commands over a vault: ingest, calibrate, retry, watch, verify."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Annotated

import typer

from knotwork.cli.app import MAX_LISTED, app, progress_bar, with_core, writing
from knotwork.cli.options import VaultPath
from knotwork.cli.synced import (
    SyncSummary,
    calibrate_once,
    print_calibration,
    print_sync,
    sync_summary,
)
from knotwork.core import Core
from knotwork.errors import KnotworkError
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve.calibrate import calibrate_vault
from knotwork.retrieve.relevance import Calibration


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
    """Bring the graph in step with a whole vault, with a progress bar and a summary."""

    async def work(core: Core) -> tuple[SyncSummary, Calibration | None]:
        await core.ensure_ready()
        ingestor = Ingestor(core, root=path, extract_enabled=False if no_extract else None)
        async with writing(core, ingestor.vault, "cli-ingest"):
            with progress_bar() as progress:
                report = await sync_vault(ingestor, progress, new_folder=new_folder)
        summary = await sync_summary(core, report, ingestor.vault)
        return summary, await calibrate_once(core, ingestor.vault, summary)

    summary, calibration = with_core(work, models=True)
    print_sync(summary)
    if calibration is not None:
        print_calibration(calibration)
    raise typer.Exit(1 if summary.report.errors else 0)


@app.command()
def calibrate() -> None:
    """Calibrate the relevance gate on the vault: off-topic probe questions in the vault's
    languages set the cosine below which evidence is not relevant (run after changing the
    embedding model; `ingest` does it on a vault not yet calibrated)."""

    async def work(core: Core) -> Calibration:
        await core.ensure_ready()
        return await calibrate_vault(core, core.settings.vault_name)

    print_calibration(with_core(work, models=True))


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
    pass until none is left; exit 1 when some stay pending (a model still down)."""

    from knotwork.errors import LeaseHeldError
    from knotwork.graph.lease import lease_status, watches
    from knotwork.ingest.retry import Retried, errors_pending, retry_all
    from knotwork.watch.watcher import RETRY_PENDING_S

    async def work(core: Core) -> tuple[int, Retried]:
        await core.ensure_ready()
        ingestor = Ingestor(core)
        # Putting failed chunks back sets a flag that any retry reads, the watcher's too: no
        # write of notes, so it needs no lease.
        back = await errors_pending(ingestor.models) if errors else 0
        try:
            async with writing(core, ingestor.vault, "cli-retry"):
                with progress_bar() as progress:
                    return back, await retry_all(ingestor.models, progress)
        except LeaseHeldError as exc:
            holder = await lease_status(core.store, ingestor.vault)
            if holder is None or not watches(holder):
                if errors:  # done without the lease: said before the refusal
                    typer.echo(f"{back} chunks whose extraction had failed are pending again")
                raise
            if errors:
                typer.echo(
                    f"a watcher holds the vault ({holder.get('holder')}); it extracts the "
                    f"chunks put back within {RETRY_PENDING_S:.0f} s once the model answers"
                )
                return back, Retried()
            raise LeaseHeldError(
                f"{exc} That writer is a watcher: it finishes the pending chunks itself, every "
                f"{RETRY_PENDING_S:.0f} s once the model answers, so there is nothing to do here."
            ) from exc

    back, done = with_core(work, models=True)
    if errors:
        typer.echo(f"{back} chunks whose extraction had failed are pending again")
    typer.echo(f"embedded {done.embedded} chunks, extracted {done.extracted}")
    warnings = list(dict.fromkeys(done.warnings))  # a chunk postponed in two passes, said once
    for warning in warnings[:MAX_LISTED]:
        typer.secho(f"warning: {warning}", fg=typer.colors.YELLOW)
    if len(warnings) > MAX_LISTED:
        typer.secho(f"… and {len(warnings) - MAX_LISTED} more warnings", fg=typer.colors.YELLOW)
    if done.pending:
        why = (
            "the model did not answer; `knotwork doctor` checks it, then run `knotwork retry` again"
            if done.model_down
            else "a pass made no progress on them (see the warnings above)"
        )
        typer.secho(f"{done.pending} chunks still pending: {why}", fg=typer.colors.YELLOW)
    raise typer.Exit(1 if done.pending else 0)


@app.command()
def watch(
    path: VaultPath = None,
) -> None:
    """Follow the vault: reconcile, then keep the graph in step with every change."""
    import signal

    from knotwork.cli.printed import watch_stopped
    from knotwork.graph.lease import Lease
    from knotwork.retrieve.notes import vault_stats
    from knotwork.watch.watcher import VaultWatcher

    async def work(core: Core) -> None:
        await core.ensure_ready()
        ingestor = Ingestor(core, root=path)
        watcher = VaultWatcher(
            ingestor, Lease(core.store, ingestor.vault, core.settings.lease_ttl_s)
        )
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, watcher.stop)
        with progress_bar() as progress:
            ready = asyncio.Event()
            task = asyncio.create_task(watcher.run(progress, ready))
            await asyncio.wait(
                [task, asyncio.create_task(ready.wait())], return_when=asyncio.FIRST_COMPLETED
            )
        if not task.done():
            if watcher.last_report is not None:  # the first sync's summary, then the watch
                finisher = (
                    "this watcher does them in the background, beside its writes (a model "
                    f"not answering is asked again every {watcher.retry_s:.0f} s; `knotwork "
                    "retry` waits for the watcher's lease)"
                )
                summary = await sync_summary(core, watcher.last_report, ingestor.vault)
                print_sync(summary, finisher, why="")
                if calibration := await calibrate_once(core, ingestor.vault, summary):
                    print_calibration(calibration)
            typer.echo(f"watching {watcher.root} ({watcher.status.mode}); Ctrl-C stops")
        await task
        model_pending = 0
        if core.settings.extract:
            with contextlib.suppress(KnotworkError):  # Neo4j away: the changes are said
                model_pending = (await vault_stats(core))["pending_extractions"]
        for line in watch_stopped(watcher.root, len(watcher.pending), model_pending):
            typer.echo(line)

    with_core(work, models=True)


@app.command()
def verify(
    path: VaultPath = None,
) -> None:
    """Compare the graph with a fresh parse of the vault; exit 1 and list every difference."""
    from knotwork.check.verify import Verified, synced_from, verify_vault_report
    from knotwork.cli.printed import verify_summary

    async def work(core: Core) -> tuple[Verified, str | None, Path | None]:
        await core.ensure_ready()
        ingestor = Ingestor(core, root=path)
        with progress_bar() as progress:  # the fresh parse is a whole sync of the vault
            found = await verify_vault_report(ingestor, progress)
        return found, await synced_from(ingestor), ingestor.root

    found, elsewhere, root = with_core(work)
    differences = found.differences
    if elsewhere is not None:
        typer.secho(f"note: this vault was last synced from {elsewhere}, not {root}",
                    fg=typer.colors.YELLOW)  # fmt: skip
    for diff in differences:
        for line in diff.missing:
            typer.secho(f"missing {diff.part}: {line}", fg=typer.colors.RED)
        for line in diff.stale:
            typer.secho(f"stale {diff.part}: {line}", fg=typer.colors.RED)
    for error in found.unreadable:
        typer.secho(f"cannot ingest {error}", fg=typer.colors.YELLOW)
    count = sum(len(d.missing) + len(d.stale) for d in differences)
    typer.echo(verify_summary(count, len(found.unreadable), elsewhere))
    raise typer.Exit(1 if differences else 0)
