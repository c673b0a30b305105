"""A setting of the wrong type or out of range stops every command with a message naming the
variable and exit code 2 (a setting the user can fix), not a traceback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from knotwork.cli import app as cli
from knotwork.errors import ConfigError
from knotwork.settings import get_settings, read_settings


@pytest.fixture
def bad_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("KNOTWORK_CHUNK_SIZE", "50")
    monkeypatch.setenv("KNOTWORK_EMBED_PROVIDER", "word2vec")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.mark.parametrize(
    "command",
    [["retrieve", "what links here?"], ["doctor"], ["serve"], ["neo4j", "status"], ["init"]],
)
def test_a_bad_setting_stops_a_command_with_exit_2_naming_it(
    bad_settings: None, command: list[str]
) -> None:
    result = CliRunner().invoke(cli, command)
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: invalid settings: KNOTWORK_")
    assert "KNOTWORK_CHUNK_SIZE: " in result.output
    assert "KNOTWORK_EMBED_PROVIDER: " in result.output
    assert "Traceback" not in result.output


def test_read_settings_names_each_bad_variable_and_keeps_pydantics_reason(
    bad_settings: None,
) -> None:
    with pytest.raises(ConfigError) as raised:
        read_settings()
    text = str(raised.value)
    assert "KNOTWORK_CHUNK_SIZE: Input should be greater than or equal to 200" in text
    assert "KNOTWORK_EMBED_PROVIDER: Input should be 'ollama'" in text


@pytest.mark.parametrize(
    ("variable", "url", "said"),
    [
        (
            "KNOTWORK_OLLAMA_BASE_URL",
            "http://bob:S3cr3t/xyz@127.0.0.1:11434",
            "the port in 'http://bob:***@127.0.0.1:11434' is not a number",
        ),
        (
            "KNOTWORK_NEO4J_URI",
            "bolt://neo4j:S3cr3t-pw@127.0.0.1:7687",
            "credentials; they go in KNOTWORK_NEO4J_USER / KNOTWORK_NEO4J_PASSWORD",
        ),
        (
            "KNOTWORK_NEO4J_URI",
            "bolt://neo4j:NEO/S3cr3t@127.0.0.1:7687",
            "'bolt://neo4j:***@127.0.0.1:7687' holds credentials",
        ),
    ],
)
@pytest.mark.parametrize("command", [["doctor"], ["serve"], ["stats"]])
def test_a_url_with_a_password_clients_misread_stops_with_one_masked_line(
    monkeypatch: pytest.MonkeyPatch, variable: str, url: str, said: str, command: list[str]
) -> None:
    """A password holding "/" made doctor print it in a traceback and /health a 500; a Neo4j
    URI with credentials crashed every command in the driver ("Username is not supported")."""
    monkeypatch.setenv(variable, url)
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(cli, command)
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: invalid settings: {variable}: ")
    assert said in result.output and result.output.count("\n") == 1
    assert "S3cr3t" not in result.output
