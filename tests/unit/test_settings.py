"""Settings: prefix, defaults, and the checks that keep a deployment safe."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from knotwork.errors import ConfigError
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
