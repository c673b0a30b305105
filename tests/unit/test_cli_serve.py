"""`knotwork serve` with Neo4j out of reach, or its port taken: one `error:` line with the fix
(exit 1, or 2 for a setting to fix), as every other command, not uvicorn's traceback of the
failed lifespan or its bind error, and exit 3."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from typer.testing import CliRunner

from knotwork.cli import app as cli
from knotwork.cli.listen import bind_listeners, serve_on
from knotwork.errors import ConfigError, KnotworkError
from knotwork.settings import get_settings


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _taken_port() -> Iterator[int]:
    """A loopback port another socket listens on, for as long as the block runs."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


@pytest.fixture
def no_neo4j(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    uri = f"bolt://127.0.0.1:{_closed_port()}"
    monkeypatch.setenv("KNOTWORK_NEO4J_URI", uri)
    monkeypatch.setenv("KNOTWORK_NEO4J_PASSWORD", "knotwork-test-password")
    monkeypatch.setenv("KNOTWORK_NEO4J_UNAVAILABLE_AFTER_S", "0.5")
    monkeypatch.setenv("KNOTWORK_API_HOST", "127.0.0.1")
    monkeypatch.setenv("KNOTWORK_API_PORT", str(_closed_port()))
    get_settings.cache_clear()
    yield uri
    get_settings.cache_clear()


def test_serve_without_neo4j_says_so_in_one_line_and_exits_1(no_neo4j: str) -> None:
    result = CliRunner().invoke(cli, ["serve"])
    assert result.exit_code == 1, result.output
    assert result.output.startswith("error: Neo4j is not reachable: ")
    assert result.output.count("error:") == 1, result.output
    assert "Traceback" not in result.output
    # The fix, and the address it tried.
    assert "is Neo4j running? `knotwork neo4j start` (no Docker)" in result.output
    assert "`docker compose up -d neo4j`" in result.output
    assert f"KNOTWORK_NEO4J_URI is {no_neo4j}" in " ".join(result.output.split())


def test_serve_on_a_port_in_use_says_so_before_starting_and_exits_2(
    no_neo4j: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A port another program holds is a setting to fix, said before Neo4j is even tried and
    before anything logs "ready"; not uvicorn's bind error after the lifespan, and exit 3."""
    with _taken_port() as port:
        monkeypatch.setenv("KNOTWORK_API_PORT", str(port))
        get_settings.cache_clear()
        result = CliRunner().invoke(cli, ["serve"])
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: KNOTWORK_API_PORT {port} is in use on 127.0.0.1")
    assert "set KNOTWORK_API_PORT to a free port" in result.output
    assert result.output.count("error:") == 1, result.output
    assert "Neo4j" not in result.output and "ready" not in caplog.text


def test_mcp_over_http_on_a_port_in_use_says_so_and_exits_2(no_neo4j: str) -> None:
    """`knotwork mcp --transport http --port N` binds as serve does: one line, exit 2. It
    names --port, which overrides KNOTWORK_API_PORT (setting that would change nothing)."""
    with _taken_port() as port:
        get_settings.cache_clear()
        result = CliRunner().invoke(cli, ["mcp", "--transport", "http", "--port", str(port)])
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: --port {port} is in use on 127.0.0.1")
    assert "give --port a free port" in " ".join(result.output.split())
    assert "KNOTWORK_API_PORT" not in result.output
    assert result.output.count("error:") == 1, result.output


def test_mcp_over_http_on_a_port_setting_in_use_names_the_setting(
    no_neo4j: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --port, the port is KNOTWORK_API_PORT's, and the error names the setting."""
    with _taken_port() as port:
        monkeypatch.setenv("KNOTWORK_API_PORT", str(port))
        get_settings.cache_clear()
        result = CliRunner().invoke(cli, ["mcp", "--transport", "http"])
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: KNOTWORK_API_PORT {port} is in use on 127.0.0.1")


def test_mcp_over_http_on_a_host_not_of_this_machine_names_host(
    no_neo4j: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KNOTWORK_API_KEY", "abcdefghijklmnop1234")  # beyond loopback: keyed
    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["mcp", "--transport", "http", "--host", "192.0.2.1"])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: --host 192.0.2.1 is not an address"), result.output
    assert "KNOTWORK_API_HOST" not in result.output


def test_an_address_not_of_this_machine_says_which_setting_to_change() -> None:
    with pytest.raises(ConfigError, match=r"KNOTWORK_API_HOST=192\.0\.2\.1 is not an address"):
        bind_listeners("192.0.2.1", 0)  # TEST-NET-1: never this machine's


async def _failing_lifespan(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An app whose start-up fails, as the lifespan does when Neo4j goes meanwhile."""
    assert scope["type"] == "lifespan"
    await receive()
    await send({"type": "lifespan.startup.failed", "message": "boom"})


def test_a_start_uvicorn_gives_up_is_a_knotwork_error_not_its_exit_3() -> None:
    sockets = bind_listeners("127.0.0.1", 0)
    port = sockets[0].getsockname()[1]
    with pytest.raises(KnotworkError, match=f"did not start on 127.0.0.1:{port}"):
        serve_on(_failing_lifespan, "127.0.0.1", port, sockets)
    assert all(sock.fileno() == -1 for sock in sockets)  # closed: the port is free again
