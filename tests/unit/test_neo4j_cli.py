"""`knotwork neo4j start` and `status` as a user meets them: a running instance started with
another password is refused as a stopped one is, and a command run from a folder with no
.env says so rather than that nothing runs."""

from __future__ import annotations

import hashlib
import importlib
import io
import logging
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from knotwork.cli import app as cli
from knotwork.cli import starting
from knotwork.local_neo4j.server import LocalNeo4j
from knotwork.settings import get_settings
from tests.conftest import make_settings

PASSWORD = "the-first-password"
neo4j_cli = importlib.import_module("knotwork.cli.neo4j")  # the module; `cli` is the app


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def running(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalNeo4j]:
    """An instance created with PASSWORD whose server runs: a process standing in for its
    JVM, with the command line `LocalNeo4j.pid` knows it by (no Bolt: nothing answers)."""
    monkeypatch.chdir(tmp_path)
    bolt, http = _free_port(), _free_port()
    for key, value in {
        "NEO4J_LOCAL_DIR": str(tmp_path / "neo4j"),
        "NEO4J_LOCAL_INSTANCE": "t",
        "NEO4J_URI": f"bolt://127.0.0.1:{bolt}",
        "NEO4J_LOCAL_HTTP_PORT": str(http),
    }.items():
        monkeypatch.setenv(f"KNOTWORK_{key}", value)
    local = LocalNeo4j(make_settings(neo4j_local_dir=tmp_path / "neo4j", neo4j_local_instance="t"))
    for sub in ("data", "run"):
        (local.home / sub).mkdir(parents=True)
    marker = local.home / "data" / "knotwork-password.sha256"  # what its first start wrote
    marker.write_text(hashlib.sha256(PASSWORD.encode()).hexdigest())
    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time; time.sleep(60)",
            "org.neo4j.server.CommunityEntryPoint",
            f"--home-dir={local.home}",
        ]
    )
    (local.home / "run" / "neo4j.pid").write_text(str(server.pid))
    get_settings.cache_clear()
    try:
        deadline = time.monotonic() + 10
        while local.pid() != server.pid and time.monotonic() < deadline:
            time.sleep(0.05)  # its command line is the interpreter's until it has started
        assert local.pid() == server.pid
        yield local
    finally:
        server.kill()
        server.wait()
        get_settings.cache_clear()


def test_start_refuses_another_password_while_the_instance_runs(
    running: LocalNeo4j, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It used to say `Neo4j running (pid …)`, exit 0, and every command then had its login
    refused; stopped, the instance was refused with this message."""
    monkeypatch.setenv("KNOTWORK_NEO4J_PASSWORD", "another-password")
    result = CliRunner().invoke(cli, ["neo4j", "start", "--timeout", "1"])
    assert result.exit_code == 1, result.output
    assert f"the instance in {running.home} was created with another password" in result.output
    assert "Bolt did not answer" not in result.output  # refused before any wait


def test_start_with_a_short_password_is_a_setting_refused_before_anything_is_resolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It exited 1 (a service failure, not a setting), after saying it resolved the jars."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KNOTWORK_NEO4J_LOCAL_DIR", str(tmp_path / "neo4j"))
    monkeypatch.setenv("KNOTWORK_NEO4J_PASSWORD", "short")
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(cli, ["neo4j", "start", "--timeout", "1"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 2, result.output
    assert "KNOTWORK_NEO4J_PASSWORD must be at least 8 characters" in result.output
    assert "resolving" not in result.output and not (tmp_path / "neo4j").exists()


def test_start_with_the_instance_password_waits_for_the_running_server(
    running: LocalNeo4j, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KNOTWORK_NEO4J_PASSWORD", PASSWORD)
    result = CliRunner().invoke(cli, ["neo4j", "start", "--timeout", "1"])
    assert result.exit_code == 1 and "Bolt did not answer" in result.output  # the stand-in


def test_status_from_a_folder_with_no_env_file_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run from another folder, status looked for `.neo4j` there and said `not running`
    while the project's server ran; the other commands say there is no .env here."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KNOTWORK_NEO4J_LOCAL_DIR", raising=False)
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(cli, ["neo4j", "status"])
        stopped = CliRunner().invoke(cli, ["neo4j", "stop"])
        (tmp_path / ".env").write_text("KNOTWORK_NEO4J_LOCAL_INSTANCE=default\n")
        with_env = CliRunner().invoke(cli, ["neo4j", "status"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 1, result.output
    assert result.output.startswith(f"not running (home {tmp_path}/.neo4j/default); there is ")
    assert f"there is no .env in {tmp_path}" in result.output
    assert "run this from the folder holding your .env" in result.output
    assert f"Neo4j was not running; there is no .env in {tmp_path}" in stopped.output
    assert with_env.exit_code == 1 and "no .env" not in with_env.output  # the right folder


def test_status_with_an_absolute_instance_folder_needs_no_env_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KNOTWORK_NEO4J_LOCAL_DIR", str(tmp_path / "neo4j"))
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(cli, ["neo4j", "status"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 1 and "no .env" not in result.output, result.output


def _resolved(local: LocalNeo4j) -> None:
    """The jars resolved, as a first start left them: no Maven step to name."""
    local.jars.mkdir(parents=True, exist_ok=True)
    (local.jars / "resolved.json").write_text("{}")


def test_start_on_a_terminal_names_the_wait_with_a_spinner_and_clears_it(
    running: LocalNeo4j, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It showed nothing for the half minute a JVM takes, until `Neo4j running`: the step is
    drawn as it begins (here the stand-in never answers Bolt), and cleared before the error."""
    out = io.StringIO()
    terminal = Console(file=out, force_terminal=True, width=120)
    monkeypatch.setattr(neo4j_cli, "console", lambda: terminal, raising=False)
    monkeypatch.setenv("KNOTWORK_NEO4J_PASSWORD", PASSWORD)
    _resolved(running)
    result = CliRunner().invoke(cli, ["neo4j", "start", "--timeout", "1"])
    assert result.exit_code == 1 and "Bolt did not answer" in result.output
    assert f"starting Neo4j at bolt://127.0.0.1:{running.bolt_port}" in out.getvalue()
    assert out.getvalue().endswith("\x1b[2K")  # the line erased: the error printed after it


def test_start_off_a_terminal_logs_a_slow_wait_once(
    running: LocalNeo4j, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(starting, "SLOW_S", 0.2)
    monkeypatch.setenv("KNOTWORK_NEO4J_PASSWORD", PASSWORD)
    _resolved(running)
    caplog.set_level(logging.INFO, logger=starting.__name__)
    result = CliRunner().invoke(cli, ["neo4j", "start", "--timeout", "1"])
    assert result.exit_code == 1, result.output
    said = [r.getMessage() for r in caplog.records if r.name == starting.__name__]
    assert said == [f"still starting Neo4j at bolt://127.0.0.1:{running.bolt_port} after 0 s"]
    assert "starting Neo4j" not in result.output  # no line drawn off a terminal
