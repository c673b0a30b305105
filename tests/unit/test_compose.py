"""docker-compose.yml: valid against the Compose Specification, and safe by our own rules."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml
from jsonschema import Draft201909Validator

from tests.conftest import REPO

SCHEMA = json.loads((REPO / "tests" / "data" / "compose-spec.json").read_text())


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    return loaded


def test_valid_against_the_compose_specification(compose: dict[str, Any]) -> None:
    errors = sorted(Draft201909Validator(SCHEMA).iter_errors(compose), key=str)
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


def test_schema_rejects_a_broken_file() -> None:
    """The validation above has teeth: a misspelt key is an error."""
    broken = {"services": {"api": {"image": "x", "prots": ["8000:8000"]}}}
    assert list(Draft201909Validator(SCHEMA).iter_errors(broken))


def test_services_present(compose: dict[str, Any]) -> None:
    assert set(compose["services"]) == {"neo4j", "ollama", "ollama-pull", "api", "watcher"}
    assert compose["services"]["neo4j"]["image"] == "neo4j:5.26-community"
    assert set(compose["volumes"]) >= {"neo4j-data", "ollama"}


def test_every_published_port_is_loopback_only(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        for port in service.get("ports", []):
            assert str(port).startswith("127.0.0.1:"), f"{name} publishes {port} beyond loopback"


def test_neo4j_password_has_no_default(compose: dict[str, Any]) -> None:
    neo4j = compose["services"]["neo4j"]
    auth = neo4j["environment"]["NEO4J_AUTH"]
    assert re.fullmatch(r"neo4j/\$\{KNOTWORK_NEO4J_PASSWORD:\?[^}]+\}", auth), auth
    assert "apoc" in neo4j["environment"]["NEO4J_PLUGINS"]
    assert "healthcheck" in neo4j and "neo4j-data:/data" in neo4j["volumes"]
    env = compose["services"]["api"]["environment"]
    assert env["KNOTWORK_NEO4J_PASSWORD"].startswith("${KNOTWORK_NEO4J_PASSWORD:?")
    assert env["KNOTWORK_API_KEY"].startswith("${KNOTWORK_API_KEY:?"), (
        "the API listens on 0.0.0.0 in its container, so it must require a key"
    )


def test_api_and_watcher_wait_for_healthy_neo4j_and_finished_pulls(
    compose: dict[str, Any],
) -> None:
    for name in ("api", "watcher"):
        service = compose["services"][name]
        assert service["depends_on"]["neo4j"]["condition"] == "service_healthy"
        assert service["depends_on"]["ollama-pull"]["condition"] == "service_completed_successfully"
    assert compose["services"]["api"]["build"] == "."
    assert compose["services"]["watcher"]["image"] == compose["services"]["api"]["image"]
    assert compose["services"]["watcher"]["command"] == ["knotwork", "watch"]
    assert any(v.endswith(":/vault:ro") for v in compose["services"]["watcher"]["volumes"])


def test_a_read_only_vault_mount_is_declared_read_only(compose: dict[str, Any]) -> None:
    """Where the vault is mounted ``:ro``, REST writes must refuse (409) before touching it."""
    mounting = {
        name: service
        for name, service in compose["services"].items()
        if any(str(v).endswith(":/vault:ro") for v in service.get("volumes", []))
    }
    assert set(mounting) == {"api", "watcher"}
    for name, service in mounting.items():
        env = service["environment"]
        assert env.get("KNOTWORK_VAULT_READ_ONLY") == "true", name
        assert env["KNOTWORK_VAULT_PATH"] == "/vault", "the shared settings still apply"


def test_pull_job_pulls_the_configured_models(compose: dict[str, Any]) -> None:
    pull = compose["services"]["ollama-pull"]
    assert pull["environment"]["LLM_MODEL"] == "${KNOTWORK_LLM_MODEL:-llama3.1:8b}"
    assert pull["environment"]["EMBED_MODEL"] == "${KNOTWORK_EMBED_MODEL:-nomic-embed-text}"
    assert "ollama pull" in pull["command"][0]


def test_env_example_lists_every_setting() -> None:
    from knotwork.settings import Settings

    listed = set(
        re.findall(
            r"^(KNOTWORK_[A-Z0-9_]+)=", (REPO / ".env.example").read_text(), flags=re.MULTILINE
        )
    )
    expected = {f"KNOTWORK_{name.upper()}" for name in Settings.model_fields}
    assert listed == expected
