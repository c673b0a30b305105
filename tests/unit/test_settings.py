"""Settings: prefix, defaults, and the checks that keep a deployment safe."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import SecretStr, ValidationError

from knotwork.core import open_core
from knotwork.errors import ConfigError, GraphUnavailableError
from knotwork.settings import read_settings
from tests.conftest import make_settings


def test_reads_the_knotwork_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KNOTWORK_EMBED_MODEL", "all-minilm")
    monkeypatch.setenv("KNOTWORK_EMBED_DIMENSION", "384")
    monkeypatch.setenv("EMBED_MODEL", "ignored")
    settings = make_settings()
    assert (settings.embed_model, settings.embed_dimension) == ("all-minilm", 384)


def test_safe_defaults() -> None:
    settings = make_settings()
    assert settings.api_host == "127.0.0.1" and settings.api_is_loopback()
    assert settings.neo4j_password is None and settings.api_key is None
    assert settings.neo4j_uri.startswith("bolt://127.0.0.1")
    settings.check_api_exposure()  # loopback without a key is fine


def test_missing_password_says_how_to_set_it() -> None:
    with pytest.raises(ConfigError, match="KNOTWORK_NEO4J_PASSWORD"):
        make_settings().password()


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.10", "::", "example.org"])
def test_beyond_loopback_needs_a_key(host: str) -> None:
    with pytest.raises(ConfigError, match="KNOTWORK_API_KEY"):
        make_settings(api_host=host).check_api_exposure()
    with pytest.raises(ConfigError):
        make_settings(api_host=host, api_key="short").check_api_exposure()
    make_settings(api_host=host, api_key="k" * 16).check_api_exposure()


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "0.0.0.0"])
def test_a_short_key_is_refused_wherever_the_api_binds(host: str) -> None:
    """A set key of under 16 characters guarded every route on loopback without a word: a
    guessable key that looked like protection, where any local process or page can reach."""
    for key in ("short", "k" * 15):
        with pytest.raises(ConfigError, match=f"KNOTWORK_API_KEY has {len(key)} characters"):
            make_settings(api_host=host, api_key=key).check_api_exposure()
    make_settings(api_host=host, api_key="k" * 16).check_api_exposure()


def test_an_empty_key_on_loopback_is_no_key() -> None:
    make_settings(api_key="").check_api_exposure()  # `KNOTWORK_API_KEY=` in .env, as README says
    with pytest.raises(ConfigError, match="must be set"):
        make_settings(api_host="0.0.0.0", api_key="").check_api_exposure()


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "localhost", "127.1.2.3"])
def test_loopback_hosts(host: str) -> None:
    assert make_settings(api_host=host).api_is_loopback()


def test_rejects_unknown_uri_scheme_and_bad_sizes() -> None:
    with pytest.raises(ValidationError, match="scheme"):
        make_settings(neo4j_uri="http://localhost:7474")
    with pytest.raises(ValidationError):
        make_settings(embed_dimension=0)
    with pytest.raises(ValidationError):
        make_settings(neo4j_local_instance="../escape")


def test_routing_uri_and_port() -> None:
    settings = make_settings(neo4j_uri="neo4j+s://abc.databases.neo4j.io")
    assert settings.bolt_port() == 7687
    assert make_settings(neo4j_uri="bolt://127.0.0.1:17687").bolt_port() == 17687


def test_an_empty_vault_path_line_is_unset_not_the_current_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`KNOTWORK_VAULT_PATH=` (as init-env writes without a path) once meant Path("."): an
    ingest run from the repository ingested the repository."""
    monkeypatch.setenv("KNOTWORK_VAULT_PATH", "")
    assert make_settings().vault_path is None


def test_a_port_that_is_not_a_number_is_a_settings_error() -> None:
    with pytest.raises(ValidationError, match=re.escape("the port in 'bolt://127.0.0.1:abc'")):
        make_settings(neo4j_uri="bolt://127.0.0.1:abc")


def test_the_missing_password_names_the_folder_without_a_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=f"there is no .env in {tmp_path}"):
        make_settings().password()


async def test_a_host_name_that_does_not_resolve_is_neo4j_unreachable() -> None:
    """Not a ValueError traceback: `bolt://neo4j:7687` is compose's address, easy to copy."""
    settings = make_settings(
        neo4j_uri="bolt://nohost.invalid:7687", neo4j_password=SecretStr("x" * 12)
    )
    async with open_core(settings) as core:
        with pytest.raises(GraphUnavailableError, match="Check the host in KNOTWORK_NEO4J_URI"):
            await core.store.server_info()


def test_a_uri_without_a_host_is_refused_not_read_as_localhost() -> None:
    """`bolt:/127.0.0.1:21800` (one slash) parsed as a path: the driver would go to
    localhost:7687, another Neo4j if one listens there."""
    with pytest.raises(ValidationError, match="names no host; write it as bolt://host:port"):
        make_settings(neo4j_uri="bolt:/127.0.0.1:21800")


@pytest.mark.parametrize("url", ["127.0.0.1:11434", "localhost:11434", "ftp://host", "http://"])
def test_an_ollama_url_needs_http_and_a_host(url: str) -> None:
    """Without a scheme some clients failed ("missing an 'http://'") and others answered."""
    with pytest.raises(ValidationError, match="not an http\\(s\\) URL with a host"):
        make_settings(ollama_base_url=url)
    assert make_settings(ollama_base_url=" http://ollama:11434 ").ollama_base_url == (
        "http://ollama:11434"
    )


def test_a_misspelled_variable_is_named_with_the_setting_it_is_near() -> None:
    from knotwork.unknown_settings import unknown_variables

    warnings = unknown_variables(
        ["KNOTWORK_VAULT_NAM", "KNOTWORK_VAULT_NAME", "KNOTWORK_TEST_NEO4J_URI", "PATH",
         "KNOTWORK_BENCH_EMBEDDER", "KNOTWORK_IMAGE_EXTRAS", "KNOTWORK_ZZZ"]
    )  # fmt: skip
    assert warnings == [
        "KNOTWORK_VAULT_NAM is not a Knotwork setting and is ignored; "
        "did you mean KNOTWORK_VAULT_NAME?",
        "KNOTWORK_ZZZ is not a Knotwork setting and is ignored",
    ]


def test_the_variables_a_env_file_sets(tmp_path: Path) -> None:
    from knotwork.unknown_settings import env_file_names

    env = tmp_path / ".env"
    env.write_text("# KNOTWORK_OLD=1\nKNOTWORK_A=1\nexport KNOTWORK_B = 2\n\nnot a line\n")
    assert env_file_names(env) == ["KNOTWORK_A", "KNOTWORK_B"]
    assert env_file_names(tmp_path / "missing") == []


def test_an_env_file_takes_its_relative_folders_from_its_own_folder_and_warns_of_typos(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """`knotwork mcp --env-file`: an agent starts the server in a folder of its choosing, so a
    relative KNOTWORK_VAULT_PATH in the file is the file's folder's (else writes would land in
    another folder), the environment's stays the working directory's, and a misspelt name in
    the file is warned of as one in `.env` is."""
    from knotwork.settings import read_env_file

    for name in ("KNOTWORK_VAULT_PATH", "KNOTWORK_STATE_DIR"):
        monkeypatch.delenv(name, raising=False)
    env = tmp_path / "conf" / "knotwork.env"
    env.parent.mkdir()
    env.write_text("KNOTWORK_VAULT_PATH=../vault\nKNOTWORK_STATE_DIR=state\nKNOTWORK_VAULT_NAM=x\n")
    monkeypatch.chdir(tmp_path)  # not the file's folder
    with caplog.at_level("WARNING", logger="knotwork"):
        settings = read_env_file(env)
    assert settings.vault_path == env.parent / "../vault"
    assert settings.state_dir == env.parent / "state"
    assert "KNOTWORK_VAULT_NAM" in caplog.text and "KNOTWORK_VAULT_NAME" in caplog.text
    monkeypatch.setenv("KNOTWORK_VAULT_PATH", "here")
    assert read_env_file(env).vault_path == Path("here")


@pytest.mark.parametrize(
    ("field", "url"),
    [
        ("ollama_base_url", "http://bob:S3cr3t/xyz@127.0.0.1:11434"),
        ("llm_base_url", "http://bob:S3cr3t?xyz@127.0.0.1:8080/v1"),
        ("llm_base_url", "http://bob:S3c#r3t@127.0.0.1:8080/v1"),
    ],
)
def test_a_model_url_whose_port_is_no_number_is_refused_masked(field: str, url: str) -> None:
    """The model probe failed with a traceback (doctor) or a 500 (/health) that printed the
    password: a password holding "/" ends the host early, and clients read it as the port."""
    with pytest.raises(ConfigError, match="is not a number from 0 to 65535") as caught:
        read_settings_with(field, url)
    assert "S3cr3t" not in str(caught.value) and str(caught.value).count("\n") == 0


def test_a_neo4j_uri_with_credentials_is_refused_naming_the_settings_they_go_in() -> None:
    """The driver refused it ("Username is not supported in the URI") with a traceback."""
    for uri in ("bolt://neo4j:pw-Secret@127.0.0.1:7687", "bolt://neo4j:NEO/SECRET@127.0.0.1:1"):
        with pytest.raises(ConfigError) as caught:
            read_settings_with("neo4j_uri", uri)
        said = str(caught.value)
        assert "credentials; they go in KNOTWORK_NEO4J_USER / KNOTWORK_NEO4J_PASSWORD" in said
        assert "neo4j:***@127.0.0.1" in said and "secret" not in said.lower()


def read_settings_with(field: str, value: str) -> None:
    """``read_settings`` (the entry points' reader) with one variable set."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(f"KNOTWORK_{field.upper()}", value)
        read_settings("/nonexistent/.env")
