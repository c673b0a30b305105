"""``knotwork neo4j``: a local Neo4j server from Maven Central jars (no Docker)."""

from __future__ import annotations

from typing import Annotated

import typer

from knotwork.cli.app import app, console, fail
from knotwork.cli.escaped import say
from knotwork.cli.helptext import App
from knotwork.cli.starting import starting
from knotwork.errors import KnotworkError
from knotwork.local_neo4j.server import LocalNeo4j
from knotwork.settings import get_settings, no_env_file_here

neo4j_app = App(
    help="A local Neo4j server from Maven Central jars (no Docker).", no_args_is_help=True
)
app.add_typer(neo4j_app, name="neo4j")


def _local() -> LocalNeo4j:
    try:
        return LocalNeo4j(get_settings())
    except KnotworkError as exc:
        raise fail(exc) from exc


def _elsewhere(local: LocalNeo4j) -> str:
    """Why a server that runs may not be found: with no .env here, a relative
    KNOTWORK_NEO4J_LOCAL_DIR (the default) is looked for in this folder, not the project's."""
    missing = no_env_file_here()
    if missing is None or local.settings.neo4j_local_dir.is_absolute():
        return ""
    return (
        f"; {missing}, so the instance was looked for in this folder: run this from the "
        "folder holding your .env (where `knotwork neo4j start` ran)"
    )


@neo4j_app.command("start")
def neo4j_start(
    timeout: Annotated[
        float, typer.Option(metavar="SECONDS", help="seconds to wait for Bolt")
    ] = 180,
) -> None:
    """Resolve the jars (first time only), write neo4j.conf, start, wait until Bolt answers."""
    local = _local()
    try:
        local.start_password()  # a bad setting refused before Maven is named or run
        what = f"starting Neo4j at bolt://127.0.0.1:{local.bolt_port}"
        if not local.jars.joinpath("resolved.json").is_file():
            say(f"resolving Neo4j jars with Maven into {local.jars} (first start only)…")
            what = f"resolving the jars, then {what}"
        # Half a minute or more: named with a spinner and a clock on a terminal, logged off one
        # only past starting.SLOW_S, as every command's start is.
        with starting(console()) as start:
            start.step(what)
            status = local.start(timeout)
    except KnotworkError as exc:
        raise fail(exc) from exc
    say(f"Neo4j running (pid {status.pid}) at {status.bolt_uri}")
    say(
        f"Neo4j Browser: {status.browser_url}"
        if status.browser_url
        else "Neo4j Browser: not available (its jar could not be resolved)"
    )


@neo4j_app.command("stop")
def neo4j_stop() -> None:
    """Stop the local server."""
    local = _local()
    try:
        stopped = local.stop()
    except KnotworkError as exc:
        raise fail(exc) from exc
    say("Neo4j stopped" if stopped else f"Neo4j was not running{_elsewhere(local)}")


@neo4j_app.command("status")
def neo4j_status() -> None:
    """Say whether the local server runs and answers Bolt; exit 1 when it does not."""
    local = _local()
    status = local.status()
    if status.running:
        say(
            f"running (pid {status.pid}), Bolt {'ready' if status.bolt_ready else 'not ready'}"
            f" at {status.bolt_uri}, home {status.home}"
        )
    else:
        say(f"not running (home {status.home}){_elsewhere(local)}")
    raise typer.Exit(0 if status.bolt_ready else 1)


@neo4j_app.command("logs")
def neo4j_logs(
    lines: Annotated[int, typer.Option("--lines", "-n", metavar="N", help="how many lines")] = 50,
) -> None:
    """Print the last lines of the server's log."""
    say(_local().log_tail(lines))
