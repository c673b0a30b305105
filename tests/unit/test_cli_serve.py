"""`knotwork serve` with Neo4j out of reach: one `error:` line with the fix and exit 1, as every
other command, not uvicorn's traceback of the failed lifespan and exit 3."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from knotwork.cli import app as cli
from knotwork.settings import get_settings


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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
