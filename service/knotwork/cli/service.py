"""Commands about the service itself: version, serve, mcp, init, reembed, doctor."""

from __future__ import annotations

import asyncio
import enum
import socket
from pathlib import Path
from typing import Annotated

import typer

from knotwork import __version__
from knotwork.check.health import check_health
from knotwork.check.reports import HealthReport
from knotwork.cli.app import app, fail, progress_bar, with_core, writer_lease, writing
from knotwork.cli.escaped import say
from knotwork.cli.printed import reembed_refused
from knotwork.cli.stopped import ReembedStopped
from knotwork.core import Core, open_core
from knotwork.errors import ConfigError, KnotworkError
from knotwork.graph import schema
from knotwork.graph.lease import holding
from knotwork.graph.reembed_lease import ReembedLease, check_free
from knotwork.ingest.ingestor import Ingestor
from knotwork.llm.ollama_probe import not_pulled
from knotwork.llm.reembed_vectors import vectors_apart
from knotwork.plural import counted
from knotwork.redact import redact
from knotwork.settings import Settings, get_settings, read_env_file


@app.command()
def version() -> None:
    """Print the version."""
    say(__version__)


@app.command()
def serve() -> None:
    """Run the HTTP API (host and port from KNOTWORK_API_HOST / KNOTWORK_API_PORT)."""
    from knotwork.api import create_app
    from knotwork.api.send_timeout import SendTimeout
    from knotwork.cli.listen import bind_listeners, serve_on

    sockets: list[socket.socket] = []
    try:
        settings = get_settings()
        api = create_app(settings)
        # Bound before anything starts: a port in use is a setting to fix (exit 2), said
        # before the lifespan logs "ready" (uvicorn binds after it, then exits 3).
        sockets = bind_listeners(settings.api_host, settings.api_port)
        # The lifespan runs this check too, but a failure there is uvicorn's traceback and
        # exit 3: checked here first, Neo4j down or another model's graph is one line.
        asyncio.run(_ensure_ready(settings))
        # Outermost, so a client that stops reading is cut off whatever it asked
        # (send_timeout.py).
        served = SendTimeout(api, settings.api_send_timeout_s)
        serve_on(served, settings.api_host, settings.api_port, sockets)
    except KnotworkError as exc:
        for sock in sockets:
            sock.close()
        raise fail(exc) from exc


async def _ensure_ready(settings: Settings) -> None:
    """The lifespan's readiness check (schema applied, manifest matched), ahead of it."""
    async with open_core(settings) as core:
        await core.ensure_ready()


class Transport(enum.StrEnum):
    stdio = "stdio"
    http = "http"


def _knotwork_error(exc: BaseException) -> KnotworkError | None:
    """The Knotwork error behind a failed run; anyio wraps one raised in a task in a group."""
    if isinstance(exc, KnotworkError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        return next(filter(None, map(_knotwork_error, exc.exceptions)), None)
    return None


def _read_env_file(env_file: Path) -> Settings:
    """A file that cannot be read is a ConfigError, as a bad setting is: over stdio the agent's
    client shows it as a tool error, where a usage error killed the server before it spoke."""
    try:
        env_file.open("rb").close()  # missing, a folder, unreadable: each an OSError
    except OSError as exc:
        raise ConfigError(f"--env-file {env_file} cannot be read: {exc.strerror}") from exc
    return read_env_file(env_file)


@app.command("mcp")
def mcp_server(
    transport: Annotated[
        Transport,
        typer.Option(
            metavar="stdio|http",
            help="stdio for desktop agents; http for streamable HTTP at /mcp",
        ),
    ] = Transport.stdio,
    host: Annotated[
        str | None, typer.Option(metavar="HOST", help="http only; default KNOTWORK_API_HOST")
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(min=1, max=65535, metavar="PORT", help="http only; default KNOTWORK_API_PORT"),
    ] = None,
    allow_writes: Annotated[
        bool,
        typer.Option(
            "--allow-writes",
            help="also serve upsert_note, delete_note and sync (as REST PUT/DELETE /notes, "
            "POST /sync); without it the tools only read",
        ),
    ] = False,
    env_file: Annotated[
        Path | None,
        typer.Option(
            "--env-file",
            metavar="FILE",
            help="read the KNOTWORK_* settings from this file (the environment still wins)",
        ),
    ] = None,
) -> None:
    """Serve the MCP tools to agents: ask, retrieve, explain, search_notes, get_note,
    note_history, stats; with --allow-writes also upsert_note, delete_note, sync.

    Over stdio, stdout carries only the protocol; logs go to stderr. If the server cannot
    start (Neo4j unreachable, a manifest naming another embedding model), it still answers the
    handshake and every tool call returns the reason as its error; Neo4j unreachable is tried
    again on the next tool call, so the tools work once it is up. Over http, the REST API's
    rule holds: beyond loopback only with KNOTWORK_API_KEY, sent as the X-API-Key header.
    """
    import anyio

    from knotwork.mcp import create_mcp_server, http_app
    from knotwork.mcp.stdio import serve_stdio

    try:
        try:
            settings = _read_env_file(env_file) if env_file else get_settings()
        except ConfigError as exc:
            if transport is not Transport.stdio:
                raise fail(exc) from exc
            # A desktop agent shows a tool error, not a server that died at its start.
            failed = create_mcp_server(failure=f"ConfigError: {redact(str(exc))}")
            anyio.run(serve_stdio, failed)
            return
        if transport is Transport.stdio:
            anyio.run(serve_stdio, create_mcp_server(settings, allow_writes=allow_writes))
            return
        from knotwork.cli.listen import SETTINGS, Named, bind_listeners, serve_on

        update = {"api_host": host or settings.api_host, "api_port": port or settings.api_port}
        settings = settings.model_copy(update=update)
        app = http_app(settings, allow_writes=allow_writes)
        # As serve: a port in use is one line and exit 2, before the server says it is ready;
        # it names --host and --port when they were given, since they override the settings.
        named = Named(
            host="--host" if host else SETTINGS.host, port="--port" if port else SETTINGS.port
        )
        sockets = bind_listeners(settings.api_host, settings.api_port, named)
        serve_on(app, settings.api_host, settings.api_port, sockets)
    except BaseException as exc:
        if (error := _knotwork_error(exc)) is None:
            raise
        raise fail(error) from exc


@app.command()
def init() -> None:
    """Create constraints, indexes and the manifest (idempotent; serve does it too)."""
    # The schema is applied as every command's start applies it, its step named; the work
    # only reads back the manifest that left.
    manifest = with_core(lambda core: core.check_manifest(), ready=True)
    assert manifest is not None  # ensure_ready writes one when there is none
    say(
        f"schema ready; embedding model {manifest['embed_model']} "
        f"({manifest['embed_dimension']} dimensions)"
    )


@app.command()
def reembed() -> None:
    """Re-embed every chunk with the configured embedding model and rebuild the vector index.

    Holds the lease of KNOTWORK_VAULT_NAME and one over every vault of the database meanwhile:
    stop every vault's watcher and writer first."""
    stage = ReembedStopped()  # how far it got, said if a signal stops it
    # A watcher embeds with the model it started with: it must not go on beside the new one.
    watched = (
        "The watcher embeds with the model it started with: stop it first, run `knotwork "
        "reembed`, then start it again with the new settings"
    )

    async def work(core: Core) -> tuple[schema.Reembedded, int]:
        status = {"mode": "cli-reembed", "watches": False}  # no other vault's writer meanwhile
        async with (
            writing(core, "cli-reembed", watched) as lease,
            holding(ReembedLease(core.store, lease.ttl_s, lease.holder), status),
        ):
            # A text the model refuses alone waits for `knotwork retry`, the rest re-embedded.
            embed = vectors_apart(core.load_embedder, core.settings.embed_dimension)
            # As ingest's and retry's: a bar on a terminal, else a log line every few seconds
            # (a "\r" written to a pipe or a file ran every count into one line).
            with progress_bar() as bar:
                done = await stage.reembed(core, embed, bar, lease.holder)
            return done, await Ingestor(core).link_entities()

    done, linked = with_core(
        work,
        models=True,
        first=lambda core: check_free(writer_lease(core, watched)),
        stopped_said=stage.said,
    )
    settings = get_settings()
    say(
        f"re-embedded {counted(done.embedded, 'chunk')}; the manifest now names "
        f"{settings.embed_model}"
    )
    for line in reembed_refused(done.refused, settings.embed_model, settings.vault_name):
        say(line, fg=typer.colors.YELLOW)
    say(f"entity names embedded again; similar entities linked: {linked}")


def _print_report(report: HealthReport) -> None:
    def line(ok: bool, text: str) -> None:
        say(f"{'ok ' if ok else 'FAIL'} {text}", fg=typer.colors.GREEN if ok else typer.colors.RED)

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
    if (o := report.ollama) is not None:
        line(
            o.version is not None,
            f"Ollama reachable at {o.base_url}"
            + (f" (version {o.version})" if o.version else f": {o.error}"),
        )
        for model in o.models:
            said = f"model {model.name}" if model.present else not_pulled(model.name)
            line(model.present, f"{model.role} {said}")
    if (c := report.llm_server) is not None:
        line(
            c.reachable,
            f"OpenAI-compatible server reachable at {c.base_url}"
            + (f" ({counted(len(c.served), 'model')} listed)" if c.reachable else f": {c.error}"),
        )
        if c.reachable:
            line(c.ok, f"llm model {c.model}" + ("" if c.ok else f": {c.error}"))
    m = report.manifest
    line(m.ok, "manifest matches the settings" if m.ok else f"manifest: {m.error}")
    if (r := report.relevance) is not None and r.calibrated:
        say(
            f"relevance gate calibrated: floor {r.floor:.2f} from {r.probes} probe questions "
            f"({', '.join(r.languages)})"
        )
    elif r is not None:
        say(
            f"relevance gate not calibrated for this embedding model yet (raw cosine "
            f"meanwhile): {r.fix}",
            fg=typer.colors.YELLOW,
        )
    if (e := report.embeddings) is not None:
        say(f"{e.reason}; fix: {e.fix}", fg=typer.colors.YELLOW)
    say("")
    for name, cap in report.capabilities.items():
        if cap.ready:
            line(True, f"{name}: ready")
        elif not cap.needed:
            say(f"off  {name}: {cap.reason}")
        else:
            line(False, f"{name}: {cap.reason}" + (f" — fix: {cap.fix}" if cap.fix else ""))


@app.command()
def doctor() -> None:
    """Check Neo4j and its indexes, the vault folder, the model servers, their models and the
    manifest, then say what works (ingest, search, answers, extraction); exit 1 when a
    capability the settings ask for is not ready."""
    report = with_core(check_health, connect=False)  # Neo4j down is a line of its report
    _print_report(report)
    ollama = report.ollama.models if report.ollama is not None else []
    missing = [m.pull_command for m in ollama if not m.present]
    if missing:
        say("\nPull the missing models with:\n  " + "\n  ".join(missing))
    raise typer.Exit(0 if report.ok else 1)
