"""Commands over a vault: ingest, calibrate, retry, watch, verify."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from knotwork.cli.app import MAX_LISTED, app, progress_bar, with_core, writing
from knotwork.cli.options import VaultPath
from knotwork.core import Core
from knotwork.errors import EmptyVaultError, KnotworkError
from knotwork.graph.queries.admin import UNRESOLVED_LINKS, UnresolvedLinksRow
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import SyncReport, sync_vault
from knotwork.retrieve.calibrate import calibrate_vault, is_calibrated
from knotwork.retrieve.relevance import FLOOR_SPREAD, Calibration


@dataclass
class _Summary:
    """What a sync did, and what the graph holds after it (the reverse mention pass and other
    writers' work included), for the summary a person reads."""

    report: SyncReport
    unresolved: list[UnresolvedLinksRow]
    stats: dict[str, Any]


async def _summary(core: Core, report: SyncReport, vault: str) -> _Summary:
    from knotwork.retrieve.notes import vault_stats

    unresolved = await core.store.read(UNRESOLVED_LINKS, vault=vault)
    return _Summary(report, unresolved, await vault_stats(core))


RETRY_HINT = "`knotwork retry` finishes them once it answers"
SOURCES_LISTED = 3  # the notes named for each unresolved link


def _print_sync(
    summary: _Summary, finisher: str = RETRY_HINT, why: str = " (the model was not available)"
) -> None:
    """A sync's summary; ``finisher`` says what finishes the chunks left pending and ``why``
    why they are (a watcher's are pending by design: it extracts beside its writes)."""
    report, stats = summary.report, summary.stats
    typer.echo(
        f"notes {report.notes}: written {report.written}, unchanged {report.unchanged}, "
        f"moved {report.renamed}, deleted {report.deleted}"
    )
    typer.echo(
        f"chunks {report.chunks} (embedded {report.embedded}), model extractions {report.extracted}"
    )
    if report.linked:
        typer.echo(f"similar entities linked: {report.linked}")
    facts = ", ".join(f"{k} {v}" for k, v in sorted(stats["facts"].items())) or "none"
    typer.echo(f"facts in the graph by extractor: {facts}")
    if summary.unresolved:
        typer.echo(f"unresolved links: {len(summary.unresolved)}")
        for row in summary.unresolved[:MAX_LISTED]:  # a list cut short says so
            sources, more = row["sources"], len(row["sources"]) - SOURCES_LISTED
            cut = f", … and {more} more" if more > 0 else ""
            typer.echo(f"  [[{row['target']}]] from {', '.join(sources[:SOURCES_LISTED])}{cut}")
        if (left := len(summary.unresolved) - MAX_LISTED) > 0:
            typer.echo(f"  … and {left} more unresolved links")
    pending = []
    if (n := stats["pending_embeddings"]) == 1:
        pending.append("1 chunk waits for its embedding")
    elif n:
        pending.append(f"{n} chunks wait for their embedding")
    if stats["pending_extractions"]:
        pending.append(f"{stats['pending_extractions']} for model extraction")
    if any(pending):
        typer.secho(
            f"pending: {', '.join(pending)}{why}; {finisher}",
            fg=typer.colors.YELLOW,
        )
    if failed := stats["extraction_errors"]:
        typer.secho(
            f"model extraction failed for good on {failed} chunks (the model's answers could "
            "not be read, or it refused the text); after changing the model or its context, "
            "`knotwork retry --errors` tries them again",
            fg=typer.colors.YELLOW,
        )
    for warning in report.warnings[:MAX_LISTED]:
        typer.secho(f"warning: {warning}", fg=typer.colors.YELLOW)
    if len(report.warnings) > MAX_LISTED:
        typer.secho(
            f"… and {len(report.warnings) - MAX_LISTED} more warnings", fg=typer.colors.YELLOW
        )
    for error in report.errors:
        typer.secho(f"error: {error}", fg=typer.colors.RED)


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

    async def work(core: Core) -> tuple[_Summary, Calibration | None]:
        await core.ensure_ready()
        ingestor = Ingestor(core, root=path, extract_enabled=False if no_extract else None)
        async with writing(core, ingestor.vault, "cli-ingest"):
            with progress_bar() as progress:
                report = await sync_vault(ingestor, progress, new_folder=new_folder)
        summary = await _summary(core, report, ingestor.vault)
        return summary, await _calibrate_once(core, ingestor.vault, summary)

    summary, calibration = with_core(work, models=True)
    _print_sync(summary)
    if calibration is not None:
        _print_calibration(calibration)
    raise typer.Exit(1 if summary.report.errors else 0)


async def _calibrate_once(core: Core, vault: str, summary: _Summary) -> Calibration | None:
    """Calibrate the relevance gate of a vault not yet calibrated for this embedding model,
    once every chunk is embedded (probes against half-embedded notes would set it too low)."""
    if summary.stats["pending_embeddings"] or await is_calibrated(core, vault):
        return None
    try:
        return await calibrate_vault(core, vault)
    except EmptyVaultError:  # an empty vault, or notes without text: calibrated once it has some
        return None


def _print_calibration(calibration: Calibration) -> None:
    typer.echo(
        f"relevance floor {calibration.floor:.2f} for {calibration.embed_model}: "
        f"{FLOOR_SPREAD:g} standard deviations over the mean ({calibration.probe_mean:.2f}) "
        f"of all but the top tenth of {calibration.probes} off-topic probe questions "
        f"({', '.join(calibration.languages)})"
    )


@app.command()
def calibrate() -> None:
    """Calibrate the relevance gate on the vault: off-topic probe questions in the vault's
    languages set the cosine below which evidence is not relevant (run after changing the
    embedding model; `ingest` does it on a vault not yet calibrated)."""

    async def work(core: Core) -> Calibration:
        await core.ensure_ready()
        return await calibrate_vault(core, core.settings.vault_name)

    _print_calibration(with_core(work, models=True))


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
                summary = await _summary(core, watcher.last_report, ingestor.vault)
                _print_sync(summary, finisher, why="")
                if calibration := await _calibrate_once(core, ingestor.vault, summary):
                    _print_calibration(calibration)
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
