"""The ``knotwork`` command line: a thin layer over the core, like the API."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from knotwork import __version__, schema
from knotwork.core import Core, open_core
from knotwork.errors import ConfigError, KnotworkError
from knotwork.health import HealthReport, check_health
from knotwork.ingest import Ingestor
from knotwork.neo4j_local import LocalNeo4j
from knotwork.settings import get_settings
from knotwork.sync import SyncReport, sync_vault

app = typer.Typer(
    help="Knotwork: a Markdown vault as a live knowledge graph in Neo4j.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
neo4j_app = typer.Typer(
    help="A local Neo4j server from Maven Central jars (no Docker).", no_args_is_help=True
)
app.add_typer(neo4j_app, name="neo4j")

T = TypeVar("T")
MAX_LISTED = 30  # warnings and unresolved links printed before "… and N more"


@app.callback()
def _main(verbose: Annotated[bool, typer.Option("--verbose", "-v")] = False) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    for noisy in ("httpx", "neo4j"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def _fail(exc: KnotworkError) -> typer.Exit:
    typer.secho(f"error: {exc}", fg=typer.colors.RED, err=True)
    return typer.Exit(2 if isinstance(exc, ConfigError) else 1)


def _with_core(work: Callable[[Core], Awaitable[T]]) -> T:
    """Run ``work`` with an open core; KnotworkErrors become a message and a non-zero exit."""

    async def run() -> T:
        async with open_core(get_settings()) as core:
            return await work(core)

    try:
        return asyncio.run(run())
    except KnotworkError as exc:
        raise _fail(exc) from exc


@app.command()
def version() -> None:
    """Print the version."""
    typer.echo(__version__)


@app.command()
def serve() -> None:
    """Run the HTTP API (host and port from KNOTWORK_API_HOST / KNOTWORK_API_PORT)."""
    import uvicorn

    from knotwork.api import create_app

    settings = get_settings()
    try:
        api = create_app(settings)
    except KnotworkError as exc:
        raise _fail(exc) from exc
    uvicorn.run(api, host=settings.api_host, port=settings.api_port, log_config=None)


@app.command()
def init() -> None:
    """Create constraints, indexes and the manifest (idempotent; serve does it too)."""
    manifest = _with_core(lambda core: core.ensure_ready())
    typer.echo(
        f"schema ready; embedding model {manifest['embed_model']} "
        f"({manifest['embed_dimension']} dimensions)"
    )


@app.command()
def reembed() -> None:
    """Re-embed every chunk with the configured embedding model and rebuild the vector index."""

    def progress(done: int, total: int) -> None:
        typer.echo(f"\rre-embedded {done}/{total} chunks", nl=False)

    async def work(core: Core) -> tuple[int, int]:
        count = await schema.reembed(core.store, core.settings, core.embedder, progress)
        return count, await Ingestor(core).link_entities()

    count, linked = _with_core(work)
    typer.echo(f"\nre-embedded {count} chunks; the manifest now names {get_settings().embed_model}")
    typer.echo(f"entity names embedded again; similar entities linked: {linked}")


def _print_report(report: HealthReport) -> None:
    def line(ok: bool, text: str) -> None:
        typer.secho(
            f"{'ok ' if ok else 'FAIL'} {text}", fg=typer.colors.GREEN if ok else typer.colors.RED
        )

    n = report.neo4j
    line(
        n.version is not None,
        f"Neo4j reachable at {n.uri}"
        + (
            f" (version {n.version}, {n.edition}, APOC {'yes' if n.apoc else 'no'})"
            if n.version
            else f": {n.error}"
        ),
    )
    if n.version is not None:
        line(not n.missing_indexes, "indexes ONLINE" if not n.missing_indexes else n.error or "")
    o = report.ollama
    if not o.needed:
        line(True, "Ollama not needed (in-process embeddings, model extraction off)")
    else:
        line(
            o.version is not None,
            f"Ollama reachable at {o.base_url}"
            + (f" (version {o.version})" if o.version else f": {o.error}"),
        )
    for model in o.models:
        line(
            model.present,
            f"{model.role} model {model.name}"
            + ("" if model.present else f" is not pulled; run: {model.pull_command}"),
        )
    m = report.manifest
    line(m.ok, "manifest matches the settings" if m.ok else f"manifest: {m.error}")


@app.command()
def doctor() -> None:
    """Check Neo4j, its indexes, Ollama, the models and the manifest; non-zero exit on failure."""
    report = _with_core(check_health)
    _print_report(report)
    missing = [m.pull_command for m in report.ollama.models if not m.present]
    if missing:
        typer.echo("\nPull the missing models with:\n  " + "\n  ".join(missing))
    raise typer.Exit(0 if report.ok else 1)


@contextmanager
def _progress_bar() -> Iterator[Callable[[int, int, str], None]]:
    """A terminal progress bar for long syncs; yields the callback that moves it."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=True,
    ) as bar:
        task = bar.add_task("reading the vault", total=None)

        def progress(done: int, total: int, note: str) -> None:
            bar.update(task, completed=done, total=total, description=note[-40:])

        yield progress


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
        with _progress_bar() as progress:
            report = await sync_vault(ingestor, progress)
        unresolved = await core.store.read("unresolved_links", vault=ingestor.vault)
        return report, unresolved

    report, unresolved = _with_core(work)
    _print_sync(report, unresolved)
    raise typer.Exit(1 if report.errors else 0)


@app.command()
def retry() -> None:
    """Embed and extract the chunks left pending while a model was unavailable."""

    async def work(core: Core) -> tuple[int, int]:
        await core.ensure_ready()
        return await Ingestor(core).retry_pending()

    embedded, extracted = _with_core(work)
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
        with _progress_bar() as progress:
            ready = asyncio.Event()
            task = asyncio.create_task(watcher.run(progress, ready))
            await asyncio.wait(
                [task, asyncio.create_task(ready.wait())], return_when=asyncio.FIRST_COMPLETED
            )
        if not task.done():
            typer.echo(f"watching {watcher.root} ({watcher.status.mode}); Ctrl-C stops")
        await task

    _with_core(work)


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

    differences = _with_core(work)
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


def _int_list(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError as exc:
        raise typer.BadParameter(f"{text!r} is not a comma-separated list of integers") from exc


@app.command("eval")
def evaluate(
    questions: Annotated[Path, typer.Option(help="questions JSONL (gold_titles or gold_notes)")],
    vault: Annotated[Path | None, typer.Option(help="a folder of notes to evaluate on")] = None,
    corpus: Annotated[
        Path | None, typer.Option(help="passages JSONL {title, text}: one note each")
    ] = None,
    k: Annotated[str, typer.Option("--k", help="cut-offs, e.g. 2,5,10")] = "2,5,10",
    limit: Annotated[int | None, typer.Option(help="only the first N questions")] = None,
    configs: Annotated[
        str,
        typer.Option(
            help="dense, fulltext, hybrid, full, and ablations: no-vector, no-fulltext, "
            "no-names, no-graph, no-synonym, no-temporal, no-ppr (or 'ablations' for all)"
        ),
    ] = "dense,fulltext,hybrid,full",
    out: Annotated[Path | None, typer.Option(help="write the Markdown results here")] = None,
    reuse: Annotated[
        bool, typer.Option(help="keep the ingested vault; --no-reuse rebuilds it")
    ] = True,
    name: Annotated[str | None, typer.Option(help="vault name suffix (eval-NAME)")] = None,
    cache: Annotated[
        Path | None, typer.Option(help="where corpus notes go (default ~/.cache/knotwork/eval)")
    ] = None,
    answer: Annotated[
        str | None,
        typer.Option(
            help="fast or normal: the chat model answers each question too (EM/F1 scored)"
        ),
    ] = None,
) -> None:
    """Measure retrieval (passage recall@k and latency per retriever configuration) and, with
    --answer, the chat model's answers (exact match and F1 against the gold answers)."""
    from knotwork.eval_data import default_cache
    from knotwork.evaluate import EvalReport, EvalSpec, expand_configs, render, run_eval

    spec = EvalSpec(
        questions=questions,
        vault_dir=vault,
        corpus=corpus,
        name=name,
        cache=cache or default_cache(),
        ks=_int_list(k),
        limit=limit,
        configs=expand_configs([c.strip() for c in configs.split(",") if c.strip()]),
        reuse=reuse,
        answer_mode=answer,  # type: ignore[arg-type]  # check_spec refuses other values
    )

    async def work(core: Core) -> EvalReport:
        with _progress_bar() as progress:
            return await run_eval(core, spec, progress, progress)

    report = _with_core(work)
    for error in report.sync.errors:
        typer.secho(f"ingest error: {error}", fg=typer.colors.RED, err=True)
    s = get_settings()
    text = render(
        report,
        f"embeddings {s.embed_model} ({s.embed_dimension} dimensions, {s.embed_provider}), "
        f"chunks of {s.chunk_size} characters, model extraction off",
    )
    typer.echo(text)
    if out is not None:
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            typer.secho(f"error: --out {out}: {exc.strerror or exc}", fg=typer.colors.RED, err=True)
            raise typer.Exit(1) from exc
        typer.echo(f"written to {out}")


# -- knotwork neo4j ... ------------------------------------------------------------------------


def _local() -> LocalNeo4j:
    return LocalNeo4j(get_settings())


@neo4j_app.command("start")
def neo4j_start(
    timeout: Annotated[float, typer.Option(help="seconds to wait for Bolt")] = 180.0,
) -> None:
    """Resolve the jars (first time only), write neo4j.conf, start, wait until Bolt answers."""
    local = _local()
    try:
        if not local.jars.joinpath("resolved.json").is_file():
            typer.echo(f"resolving Neo4j jars with Maven into {local.jars} (first start only)…")
        status = local.start(timeout)
    except KnotworkError as exc:
        raise _fail(exc) from exc
    typer.echo(f"Neo4j running (pid {status.pid}) at {status.bolt_uri}")
    typer.echo(
        f"Neo4j Browser: {status.browser_url}"
        if status.browser_url
        else "Neo4j Browser: not available (its jar could not be resolved)"
    )


@neo4j_app.command("stop")
def neo4j_stop() -> None:
    """Stop the local server."""
    try:
        stopped = _local().stop()
    except KnotworkError as exc:
        raise _fail(exc) from exc
    typer.echo("Neo4j stopped" if stopped else "Neo4j was not running")


@neo4j_app.command("status")
def neo4j_status() -> None:
    """Say whether the local server runs and answers Bolt; exit 1 when it does not."""
    status = _local().status()
    if status.running:
        typer.echo(
            f"running (pid {status.pid}), Bolt {'ready' if status.bolt_ready else 'not ready'}"
            f" at {status.bolt_uri}, home {status.home}"
        )
    else:
        typer.echo(f"not running (home {status.home})")
    raise typer.Exit(0 if status.bolt_ready else 1)


@neo4j_app.command("logs")
def neo4j_logs(lines: Annotated[int, typer.Option("--lines", "-n")] = 50) -> None:
    """Print the last lines of the server's log."""
    typer.echo(_local().log_tail(lines))


if __name__ == "__main__":
    app()
