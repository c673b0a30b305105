"""`GET /health` and `knotwork doctor` against the real Neo4j and the fake Ollama."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from knotwork.api import create_app
from knotwork.cli import app as cli
from knotwork.graph.store import EXPECTED_INDEXES
from knotwork.settings import Settings, get_settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import Neo4jTarget, get_health


def test_health_is_green_with_real_neo4j_and_fake_ollama(
    settings: Settings, empty_db: Neo4jTarget, fake_ollama: FakeOllama, vault: Path
) -> None:
    response = get_health(settings, vault, fake_ollama)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["ok"] is True
    assert body["neo4j"]["version"].startswith("5.26")
    assert body["neo4j"]["apoc"] is True
    states = {i["name"]: i["state"] for i in body["neo4j"]["indexes"]}
    assert all(states[name] == "ONLINE" for name in EXPECTED_INDEXES)
    assert body["neo4j"]["missing_indexes"] == []
    assert body["ollama"]["version"] == fake_ollama.version
    assert {(m["role"], m["name"], m["present"]) for m in body["ollama"]["models"]} == {
        ("llm", "llama3.1:8b", True),
        ("embedding", "nomic-embed-text", True),
    }
    assert body["manifest"]["stored"]["embed_model"] == "nomic-embed-text"
    caps = body["capabilities"]
    assert {name: c["ready"] for name, c in caps.items()} == {
        "ingest": True,
        "search": True,
        "answers": True,
        "extraction": True,
    }


def test_health_is_503_when_a_model_is_missing(
    settings: Settings, empty_db: Neo4jTarget, fake_ollama: FakeOllama, vault: Path
) -> None:
    response = get_health(settings, vault, fake_ollama, missing="llama3.1:8b")
    assert response.status_code == 503
    models = {m["name"]: m for m in response.json()["ollama"]["models"]}
    assert models["llama3.1:8b"]["present"] is False
    assert models["llama3.1:8b"]["pull_command"] == "ollama pull llama3.1:8b"
    caps = response.json()["capabilities"]
    assert caps["ingest"]["ready"] and caps["search"]["ready"]
    assert not caps["answers"]["ready"] and caps["answers"]["fix"] == "ollama pull llama3.1:8b"


def test_answers_are_not_ready_without_the_chat_model_even_with_extraction_off(
    env: None, monkeypatch: pytest.MonkeyPatch, fake_ollama: FakeOllama, vault: Path
) -> None:
    # Extraction off used to leave the chat model unchecked: doctor green, /query unusable.
    monkeypatch.setenv("KNOTWORK_EXTRACT", "false")
    monkeypatch.setenv("KNOTWORK_VAULT_PATH", str(vault))
    get_settings.cache_clear()
    runner = CliRunner()
    assert runner.invoke(cli, ["init"]).exit_code == 0
    del fake_ollama.models["llama3.1:8b"]
    result = runner.invoke(cli, ["doctor"])
    assert result.exit_code == 1, result.output
    assert "ok  ingest: ready" in result.output and "ok  search: ready" in result.output
    assert "FAIL answers: model llama3.1:8b is not pulled" in result.output
    assert "fix: ollama pull llama3.1:8b" in result.output
    assert "off  extraction: off (KNOTWORK_EXTRACT=false)" in result.output


def test_doctor_is_green(env: None) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["init"]).exit_code == 0
    result = runner.invoke(cli, ["doctor"])
    assert result.exit_code == 0, result.output
    assert "FAIL" not in result.output
    assert "version 5.26" in result.output
    assert "indexes ONLINE" in result.output
    assert "manifest matches the settings" in result.output


@pytest.mark.parametrize("where", ["missing", "a file"])
def test_doctor_fails_ingest_for_a_vault_folder_ingest_would_refuse(
    env: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, where: str
) -> None:
    """A mistyped KNOTWORK_VAULT_PATH used to get `ingest: ready` (exit 0), then every ingest,
    watch and verify failed on it."""
    runner = CliRunner()
    assert runner.invoke(cli, ["init"]).exit_code == 0
    folder = tmp_path / "nonexistent"
    if where == "a file":
        folder.write_text("# a note, not a folder\n", encoding="utf-8")
    monkeypatch.setenv("KNOTWORK_VAULT_PATH", str(folder))
    get_settings.cache_clear()
    result = runner.invoke(cli, ["doctor"])
    assert result.exit_code == 1, result.output
    unseen = "does not exist" if where == "missing" else "is not a folder"
    assert f"FAIL ingest: the vault folder {folder} {unseen} — fix: check KNOTWORK_VAULT_PATH" in (
        result.output
    )
    assert "ok  search: ready" in result.output  # only ingest needs the folder
    ingested = runner.invoke(cli, ["ingest", "--no-extract"])
    assert ingested.exit_code == 2 and f"the vault folder {folder} {unseen}" in ingested.output


def test_doctor_fails_ingest_for_an_empty_folder_while_the_graph_holds_its_notes(
    env: None, monkeypatch: pytest.MonkeyPatch, vault: Path
) -> None:
    (vault / "a.md").write_text("# A\n", encoding="utf-8")
    monkeypatch.setenv("KNOTWORK_VAULT_PATH", str(vault))
    get_settings.cache_clear()
    runner = CliRunner()
    assert runner.invoke(cli, ["init"]).exit_code == 0
    assert runner.invoke(cli, ["ingest", "--no-extract"]).exit_code == 0
    assert "ok  ingest: ready" in runner.invoke(cli, ["doctor"]).output
    (vault / "a.md").unlink()  # the drive unmounted: its mount point left empty
    result = runner.invoke(cli, ["doctor"])
    assert result.exit_code == 1, result.output
    assert f"FAIL ingest: the vault folder {vault} is empty while the graph holds 1 note " in (
        result.output
    )


def test_doctor_says_ingest_is_off_without_a_vault_folder(
    env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KNOTWORK_VAULT_PATH", raising=False)
    get_settings.cache_clear()
    runner = CliRunner()
    assert runner.invoke(cli, ["init"]).exit_code == 0
    result = runner.invoke(cli, ["doctor"])
    assert result.exit_code == 0, result.output  # `ingest PATH` works; a server may only read
    assert "off  ingest: no vault folder: set KNOTWORK_VAULT_PATH" in result.output


def test_doctor_is_red_with_the_exact_pull_line(env: None, fake_ollama: FakeOllama) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["init"]).exit_code == 0
    del fake_ollama.models["nomic-embed-text:latest"]
    result = runner.invoke(cli, ["doctor"])
    assert result.exit_code == 1
    assert (
        "FAIL embedding model nomic-embed-text is not pulled; run: ollama pull "
        "nomic-embed-text" in result.output
    )
    assert "\n  ollama pull nomic-embed-text\n" in result.output
    assert "ollama pull llama3.1:8b" not in result.output


def test_doctor_is_red_without_schema_and_says_how_to_create_it(env: None) -> None:
    result = CliRunner().invoke(cli, ["doctor"])
    assert result.exit_code == 1
    assert "indexes not ONLINE" in result.output and "knotwork init" in result.output


def test_doctor_is_red_when_neo4j_is_unreachable(
    env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KNOTWORK_NEO4J_URI", "bolt://127.0.0.1:1")
    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["doctor"])
    assert result.exit_code == 1
    assert "FAIL Neo4j reachable at bolt://127.0.0.1:1" in result.output


def test_doctor_tells_a_refused_password_to_set_the_password_not_to_start_neo4j(
    env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KNOTWORK_NEO4J_PASSWORD", "not-the-password")
    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["doctor"])
    assert result.exit_code == 1
    assert "rejected the credentials" in result.output
    assert "KNOTWORK_NEO4J_PASSWORD to the server's" in result.output
    assert "knotwork neo4j start" not in result.output
    assert "not reachable" not in result.output  # it answered; it refused the login


def test_serve_refuses_a_graph_of_another_embedding_model_in_one_line(
    env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lifespan's manifest check, run before uvicorn: its message and exit 1, no
    traceback and no exit 3."""
    assert CliRunner().invoke(cli, ["init"]).exit_code == 0
    monkeypatch.setenv("KNOTWORK_EMBED_MODEL", "mxbai-embed-large")
    monkeypatch.setenv("KNOTWORK_EMBED_DIMENSION", "1024")
    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["serve"])
    assert result.exit_code == 1, result.output
    assert result.output.startswith("error: The graph was embedded with 'nomic-embed-text'")
    assert "knotwork reembed" in result.output and "Traceback" not in result.output


def test_doctor_is_red_when_ollama_is_down(env: None, fake_ollama: FakeOllama) -> None:
    assert CliRunner().invoke(cli, ["init"]).exit_code == 0  # the graph ready: Ollama fails
    fake_ollama.down = True
    result = CliRunner().invoke(cli, ["doctor"])
    assert result.exit_code == 1
    assert "FAIL Ollama reachable" in result.output and "did not answer" in result.output
    assert "FAIL extraction: Ollama is not reachable at" in result.output
    assert "fix: start Ollama (`ollama serve`)" in result.output
    # Search is told of the embedder that needs no Ollama (the graph holds a manifest: reembed).
    search = next(line for line in result.output.splitlines() if "FAIL search:" in line)
    assert "KNOTWORK_EMBED_PROVIDER=use-multilingual" in search, search
    assert search.endswith("then run `knotwork reembed`"), search
    # The error itself is said once, on the Ollama line, not again on every capability.
    assert result.output.count("did not answer") == 1, result.output


def test_api_key_protects_beyond_loopback(settings: Settings) -> None:
    from knotwork.errors import ConfigError

    with pytest.raises(ConfigError, match="KNOTWORK_API_KEY"):
        create_app(settings.model_copy(update={"api_host": "0.0.0.0"}))


def test_doctor_and_health_say_whether_the_relevance_gate_is_calibrated(
    env: None, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["init"]).exit_code == 0
    before = runner.invoke(cli, ["doctor"])
    assert before.exit_code == 0, before.output  # an uncalibrated gate still works
    assert "relevance gate not calibrated" in before.output
    # Not a fix to run: under scripts/run the watcher calibrates it seconds later.
    said = " ".join(before.output.split())
    assert (
        "the watcher or `knotwork ingest` calibrates it after a sync, once every chunk is "
        "embedded; or run `knotwork calibrate`"
    ) in said, said
    assert "fix: `knotwork calibrate`" not in said and "FAIL" not in said
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Alberi.md").write_text(
        "# Alberi\n\nGli alberi binari hanno una radice e per ogni nodo al più due figli.\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("KNOTWORK_VAULT_PATH", str(vault))
    get_settings.cache_clear()
    ingested = runner.invoke(cli, ["ingest", "--no-extract"])
    assert ingested.exit_code == 0, ingested.output
    assert "relevance floor" in ingested.output
    after = runner.invoke(cli, ["doctor"])
    assert "relevance gate calibrated: floor" in after.output and "(it)" in after.output
    with TestClient(create_app(settings)) as client:
        relevance = client.get("/health").json()["relevance"]
    assert relevance["calibrated"] is True and relevance["languages"] == ["it"]
    assert relevance["probes"] == 16 and 0 <= relevance["floor"] < 1
