"""Commands over a vault: ingest, retry, watch, verify."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer

from knotwork.cli.app import MAX_LISTED, app, progress_bar, with_core
from knotwork.core import Core
from knotwork.ingest import Ingestor
from knotwork.sync import SyncReport, sync_vault


def _print_sync(report: SyncReport, unresolved: list[dict[str, Any]]) -> None:
    typer.echo(
        f"notes {report.notes}: written {report.written}, unchanged {report.unchanged}, "
        f"moved {report.renamed}, deleted {report.deleted}"
    )
    typer.echo(
        f"chunks {report.chunks} (embedded {report.embedded}), model extractions {report.extracted}"
    )
    if report.linked:
        typer.echo(f"similar entities linked: {report.linked}")
    facts = ", ".join(f"{k} {v}" for k, v in sorted(report.facts.items())) or "none"
    typer.echo(f"facts by extractor: {facts}")
    if unresolved:
        typer.echo(f"unresolved links: {len(unresolved)}")
        for row in unresolved[:MAX_LISTED]:
            typer.echo(f"  [[{row['target']}]] from {', '.join(row['sources'][:3])}")
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
    path: Annotated[
        Path | None, typer.Argument(help="vault folder (default KNOTWORK_VAULT_PATH)")
    ] = None,
    no_extract: Annotated[bool, typer.Option("--no-extract", help="structural facts only")] = False,
) -> None:
    """Bring the graph in step with a whole vault, with a progress bar and a summary."""

    async def work(core: Core) -> tuple[SyncReport, list[dict[str, Any]]]:
        await core.ensure_ready()
        ingestor = Ingestor(core, root=path, extract_enabled=False if no_extract else None)
        with progress_bar() as progress:
            report = await sync_vault(ingestor, progress)
        unresolved = await core.store.read("unresolved_links", vault=ingestor.vault)
        return report, unresolved

    report, unresolved = with_core(work, models=True)
    _print_sync(report, unresolved)
    raise typer.Exit(1 if report.errors else 0)


@app.command()
def retry() -> None:
    """Embed and extract the chunks left pending while a model was unavailable."""

    async def work(core: Core) -> tuple[int, int]:
        await core.ensure_ready()
        return await Ingestor(core).retry_pending()

    embedded, extracted = with_core(work, models=True)
    typer.echo(f"embedded {embedded} chunks, extracted {extracted}")


@app.command()
def watch(
    path: Annotated[
        Path | None, typer.Argument(help="vault folder (default KNOTWORK_VAULT_PATH)")
    ] = None,
) -> None:
    """Follow the vault: reconcile, then keep the graph in step with every change."""
    import signal

    from knotwork.lease import Lease
    from knotwork.watcher import VaultWatcher

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
            typer.echo(f"watching {watcher.root} ({watcher.status.mode}); Ctrl-C stops")
        await task

    with_core(work, models=True)


@app.command()
def verify(
    path: Annotated[
        Path | None, typer.Argument(help="vault folder (default KNOTWORK_VAULT_PATH)")
    ] = None,
) -> None:
    """Compare the graph with a fresh parse of the vault; exit 1 and list every difference."""
    from knotwork.verify import Difference, verify_vault

    async def work(core: Core) -> list[Difference]:
        await core.ensure_ready()
        return await verify_vault(Ingestor(core, root=path))

    differences = with_core(work)
    for diff in differences:
        for line in diff.missing:
            typer.secho(f"missing {diff.part}: {line}", fg=typer.colors.RED)
        for line in diff.stale:
            typer.secho(f"stale {diff.part}: {line}", fg=typer.colors.RED)
    typer.echo(
        "graph and vault agree"
        if not differences
        else f"{sum(len(d.missing) + len(d.stale) for d in differences)} differences"
    )
    raise typer.Exit(1 if differences else 0)
