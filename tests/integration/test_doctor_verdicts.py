"""`knotwork doctor` says ready only for what works: a vault folder the sync would refuse as
another vault's fails ingest (with the sync's own words and fix), extraction fails with the
graph it writes into, a fix is one that works, and a long error is said once. A model Ollama
has not pulled is said in the log as doctor says it."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from knotwork.cli import app as cli
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.settings import get_settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import put


def _with(monkeypatch: pytest.MonkeyPatch, **variables: str) -> None:
    for name, value in variables.items():
        monkeypatch.setenv(f"KNOTWORK_{name}", value)
    get_settings.cache_clear()


def _fixes(output: str) -> list[str]:
    return [line.split("— fix: ", 1)[1] for line in output.splitlines() if "— fix: " in line]


def test_doctor_fails_ingest_for_a_folder_another_vault_was_synced_from(
    env: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """After a first vault under the default name, `scripts/run` on a second one got `ok
    ingest: ready`, then the watcher stopped on VaultFolderError."""
    first, other = tmp_path / "small", tmp_path / "other"
    for name in ("Alpha", "Beta", "Gamma"):
        put(first, f"{name}.md", f"# {name}\n\n{name} works with Ann.\n")
    put(other, "Unrelated.md", "# Unrelated\n\nNothing of the first vault.\n")
    runner = CliRunner()
    _with(monkeypatch, VAULT_PATH=str(first))
    assert runner.invoke(cli, ["init"]).exit_code == 0
    assert runner.invoke(cli, ["ingest", "--no-extract"]).exit_code == 0
    _with(monkeypatch, VAULT_PATH=str(other))
    result = runner.invoke(cli, ["doctor"])
    assert result.exit_code == 1, result.output
    reason = (
        f"vault 'default' holds 3 notes synced from {first.resolve()}; this folder, "
        f"{other.resolve()}, holds 0 of them (the same path and content)"
    )
    assert f"FAIL ingest: {reason}" in result.output
    [fix] = _fixes(result.output)
    assert "set another KNOTWORK_VAULT_NAME" in fix
    assert f"`knotwork ingest {other.resolve()} --new-folder`" in fix
    assert "ok  search: ready" in result.output  # only ingest reads the folder
    ingested = runner.invoke(cli, ["ingest", "--no-extract"])  # the sync refuses it alike
    assert ingested.exit_code == 2 and reason in ingested.output, ingested.output
    # The sync's rule, not a path compared: the vault's folder moved is the vault's.
    moved = tmp_path / "moved"
    shutil.copytree(first, moved)
    _with(monkeypatch, VAULT_PATH=str(moved))
    assert "ok  ingest: ready" in runner.invoke(cli, ["doctor"]).output
    # The fix doctor gave works: the folder is the vault's then.
    _with(monkeypatch, VAULT_PATH=str(other))
    assert runner.invoke(cli, ["ingest", "--no-extract", "--new-folder"]).exit_code == 0
    assert "ok  ingest: ready" in runner.invoke(cli, ["doctor"]).output


def test_with_neo4j_down_nothing_is_ready_and_the_error_is_said_once(
    env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Extraction was judged by the chat model alone (`ok extraction: ready` under three
    FAILs), and the driver's ~300-character error was printed four times."""
    _with(monkeypatch, NEO4J_URI="bolt://127.0.0.1:1")
    result = CliRunner().invoke(cli, ["doctor"])
    assert result.exit_code == 1, result.output
    said = "Neo4j is not reachable at bolt://127.0.0.1:1 (why: see the Neo4j check)"
    for name in ("ingest", "search", "answers", "extraction"):
        assert f"FAIL {name}: {said} — fix: start Neo4j (`knotwork neo4j start`" in result.output
    assert "ready" not in result.output
    assert result.output.count("is Neo4j running?") == 1, result.output  # the driver's error


def test_a_graph_of_another_embedding_model_is_sent_only_to_what_mends_it(
    env: None, monkeypatch: pytest.MonkeyPatch, fake_ollama: FakeOllama
) -> None:
    """The fix said "`knotwork init` for a new graph", which refuses the graph alike; and
    extraction said ready."""
    runner = CliRunner()
    assert runner.invoke(cli, ["init"]).exit_code == 0
    fake_ollama.models["mxbai-embed-large:latest"] = 1024
    _with(monkeypatch, EMBED_MODEL="mxbai-embed-large", EMBED_DIMENSION="1024")
    result = runner.invoke(cli, ["doctor"])
    assert result.exit_code == 1, result.output
    said = (
        "the graph was embedded with nomic-embed-text (768 dimensions), not the settings' "
        "mxbai-embed-large (1024)"
    )
    assert f"FAIL extraction: {said}" in result.output and f"FAIL ingest: {said}" in result.output
    assert result.output.count("the settings ask for") == 1  # the manifest's line, once
    fix = (
        "set KNOTWORK_EMBED_MODEL=nomic-embed-text and KNOTWORK_EMBED_DIMENSION=768 (the "
        "graph's model), or re-embed the graph with mxbai-embed-large: `knotwork reembed`"
    )
    assert _fixes(result.output) == [fix] * 4
    init = runner.invoke(cli, ["init"])  # no fix: it refuses the graph as doctor does
    assert init.exit_code != 0 and "The graph was embedded with" in init.output
    assert runner.invoke(cli, ["reembed"]).exit_code == 0, "the fix given mends it"
    assert runner.invoke(cli, ["doctor"]).exit_code == 0


def test_a_graph_of_an_in_process_model_is_sent_to_its_provider_too(
    env: None, monkeypatch: pytest.MonkeyPatch, fake_ollama: FakeOllama
) -> None:
    """A graph embedded with USE, settings on Ollama's defaults: the fix named the model and
    dimension alone, and following it said USE "is not pulled; run: ollama pull"."""
    runner = CliRunner()
    use = {"EMBED_PROVIDER": "use-multilingual", "EMBED_MODEL": "use-multilingual-v3"}
    _with(monkeypatch, **use, EMBED_DIMENSION="512", EMBED_WORKER="thread")
    assert runner.invoke(cli, ["init"]).exit_code == 0
    for name in use:
        monkeypatch.delenv(f"KNOTWORK_{name}")
    _with(monkeypatch, EMBED_DIMENSION="768")
    result = runner.invoke(cli, ["doctor"])
    assert result.exit_code == 1, result.output
    fix = (
        "set KNOTWORK_EMBED_PROVIDER=use-multilingual, KNOTWORK_EMBED_MODEL=use-multilingual-v3 "
        "and KNOTWORK_EMBED_DIMENSION=512 (the graph's model), or re-embed the graph with "
        "nomic-embed-text: `knotwork reembed`"
    )
    assert _fixes(result.output)[0] == fix, result.output
    _with(monkeypatch, **use, EMBED_DIMENSION="512")  # the fix, followed
    mended = runner.invoke(cli, ["doctor"])
    assert mended.exit_code == 0 and "not pulled" not in mended.output, mended.output
    # The other way round: settings on USE, a graph of an Ollama model.
    _with(monkeypatch, EMBED_DIMENSION="768")
    for name in use:
        monkeypatch.delenv(f"KNOTWORK_{name}")
    assert runner.invoke(cli, ["reembed"]).exit_code == 0
    _with(monkeypatch, **use, EMBED_DIMENSION="512")
    result = runner.invoke(cli, ["doctor"])
    assert result.exit_code == 1, result.output
    assert _fixes(result.output)[0].startswith(
        "set KNOTWORK_EMBED_PROVIDER=ollama, KNOTWORK_EMBED_MODEL=nomic-embed-text and "
        "KNOTWORK_EMBED_DIMENSION=768 (the graph's model)"
    ), result.output


async def test_an_embedding_model_not_pulled_is_said_as_doctor_says_it(
    core: Core, vault: Path, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    """Ollama's 404 for a model not pulled read in the log as a proxy rewriting answers."""
    put(vault, "Alpha.md", "# Alpha\n\nAlpha works with Ann.\n")
    del fake_ollama.models["nomic-embed-text:latest"]
    caplog.set_level(logging.WARNING, logger="knotwork")
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
    said = [r.getMessage() for r in caplog.records if "embedding failed" in r.getMessage()]
    assert len(said) == 1, said
    assert (
        "embedding failed: the embedding model nomic-embed-text is not pulled; run: ollama "
        "pull nomic-embed-text" in said[0]
    )
    assert "no embeddings" not in said[0] and "rewrites" not in said[0]
