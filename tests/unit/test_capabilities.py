"""What doctor and /health say to fix when Neo4j or the vault folder cannot be used: the fix
fits the failure."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from knotwork.check.capabilities import capabilities
from knotwork.check.folder import vault_folder_problem
from knotwork.check.reports import (
    Capability,
    ManifestReport,
    ModelReport,
    Neo4jReport,
    OllamaReport,
)
from knotwork.core import Core
from tests.conftest import make_settings

URI = "bolt://127.0.0.1:7687"


def _graph(error: str, **flags: bool) -> dict[str, Capability]:
    neo4j = Neo4jReport(ok=False, uri=URI, error=error, **flags)
    return dict(capabilities(make_settings(), neo4j, None, ManifestReport(ok=False)))


def test_a_refused_password_is_not_told_to_start_neo4j() -> None:
    error = (
        "Neo4j rejected the credentials: The client is unauthorized due to authentication "
        "failure. Check KNOTWORK_NEO4J_USER and KNOTWORK_NEO4J_PASSWORD."
    )
    ingest = _graph(error, credentials_refused=True)["ingest"]
    assert not ingest.ready
    assert ingest.reason == f"Neo4j at {URI} refused the login (why: see the Neo4j check)"
    assert ingest.fix is not None and "KNOTWORK_NEO4J_PASSWORD to the server's" in ingest.fix
    assert "start Neo4j" not in ingest.fix


def test_a_server_that_does_not_answer_is_told_to_start() -> None:
    down = "Neo4j is not reachable: Couldn't connect to 127.0.0.1:7687"
    ingest = _graph(down, unreachable=True)["ingest"]
    assert ingest.reason == f"Neo4j is not reachable at {URI} (why: see the Neo4j check)"
    assert ingest.fix is not None and "knotwork neo4j start" in ingest.fix


def test_a_server_too_old_is_not_told_it_is_down() -> None:
    ingest = _graph("Neo4j 5.1.0 is too old: Knotwork needs 5.26 or newer (…)")["ingest"]
    assert ingest.reason == f"Neo4j at {URI} cannot be used (why: see the Neo4j check)"
    assert ingest.fix is None  # the error on the Neo4j line says what it needs


@pytest.mark.parametrize(
    ("flags", "said"),
    [({"unreachable": True}, "is not reachable at"), ({"credentials_refused": True}, "refused")],
)
def test_extraction_is_not_ready_without_the_graph_its_facts_go_to(
    flags: dict[str, bool], said: str
) -> None:
    """Extraction used to be judged by the chat model alone: `ok extraction: ready` under four
    FAILs. Each capability says what fails, the driver's long error is on the Neo4j line."""
    driver = "Couldn't connect to 127.0.0.1:7687 (resolved to ('127.0.0.1:7687',)): " * 4
    found = _graph(f"Neo4j is not reachable: {driver}", **flags)
    assert {name: cap.ready for name, cap in found.items()} == dict.fromkeys(found, False)
    assert found["extraction"] == found["ingest"] and said in str(found["extraction"].reason)
    assert all(driver not in str(cap.reason) for cap in found.values())


def test_extraction_stays_off_when_the_settings_turn_it_off() -> None:
    settings = make_settings(extract=False)
    neo4j = Neo4jReport(ok=False, uri=URI, error="down", unreachable=True)
    extraction = capabilities(settings, neo4j, None, ManifestReport(ok=False))["extraction"]
    assert not extraction.needed and "KNOTWORK_EXTRACT=false" in str(extraction.reason)


def _folder_problem(tmp_path: Path, vault_path: Path | None) -> Capability | None:
    """What the check says of ``vault_path`` without asking the graph (no store is needed)."""
    core = cast(Core, SimpleNamespace(settings=make_settings(vault_path=vault_path)))
    return asyncio.run(vault_folder_problem(core, graph_read=False))


def _ingest(vault_folder: Capability | None) -> Capability:
    neo4j = Neo4jReport(ok=True, uri="bolt://127.0.0.1:7687")
    found = capabilities(make_settings(), neo4j, None, ManifestReport(ok=True), None, vault_folder)
    return found["ingest"]


def test_a_missing_vault_folder_fails_ingest_as_a_sync_says_it(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    ingest = _ingest(_folder_problem(tmp_path, missing))
    assert not ingest.ready and ingest.needed  # counted by `ok`: doctor exits 1, /health 503
    assert ingest.reason == f"the vault folder {missing} does not exist"
    assert ingest.fix is not None and "KNOTWORK_VAULT_PATH" in ingest.fix


def test_a_file_as_the_vault_folder_fails_ingest(tmp_path: Path) -> None:
    file = tmp_path / "notes.md"
    file.write_text("# not a folder\n", encoding="utf-8")
    ingest = _ingest(_folder_problem(tmp_path, file))
    assert not ingest.ready and ingest.reason == f"the vault folder {file} is not a folder"


def test_no_vault_folder_turns_ingest_off_with_the_fix(tmp_path: Path) -> None:
    ingest = _ingest(_folder_problem(tmp_path, None))
    assert not ingest.ready and not ingest.needed  # `ingest PATH` works; a server may only read
    assert ingest.reason is not None and "set KNOTWORK_VAULT_PATH" in ingest.reason


def test_a_readable_vault_folder_leaves_ingest_ready(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    assert _folder_problem(tmp_path, tmp_path) is None
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _folder_problem(tmp_path, empty) is None  # a new vault's folder, the graph not asked
    assert _ingest(None).ready


def test_indexes_not_online_are_counted_and_named_once() -> None:
    missing = ["chunk_embedding", "note_embedding", "chunk_text_en"]
    neo4j = Neo4jReport(ok=False, uri=URI, version="5.26.30", missing_indexes=missing)
    found = capabilities(make_settings(), neo4j, None, ManifestReport(ok=False))
    ingest = found["ingest"]
    assert ingest.reason == "3 indexes not ONLINE (which: see the Neo4j check)"
    assert ingest.fix is not None and "knotwork init" in ingest.fix
    assert not found["extraction"].ready


@pytest.mark.parametrize(
    ("finisher", "who"),
    [(None, "`knotwork retry`"), ("the watcher", "the watcher"), ("the server", "the server")],
)
def test_extraction_waiting_for_the_chat_model_names_who_finishes_it(
    finisher: str | None, who: str
) -> None:
    """`knotwork retry` is refused while a watcher holds the vault: the watcher, or the server,
    extracts what waits itself, and is named instead."""
    neo4j = Neo4jReport(ok=True, uri=URI)
    ollama = OllamaReport(ok=False, base_url="http://127.0.0.1:11434", error="down")
    found = capabilities(make_settings(), neo4j, ollama, ManifestReport(ok=True), finisher=finisher)
    reason = found["extraction"].reason
    assert reason == (
        "Ollama is not reachable at http://127.0.0.1:11434; chunks wait for extraction; "
        f"{who} extracts them once the model answers"
    ), reason


@pytest.mark.parametrize(("stored", "reembed"), [(None, False), ({"embed_model": "x"}, True)])
def test_an_embedding_ollama_not_answering_is_told_of_the_builtin_embedder(
    stored: dict[str, str] | None, reembed: bool
) -> None:
    """A machine without Ollama was told only to start Ollama: the in-process embedder needs
    none, and a graph whose manifest names the Ollama model is re-embedded to use it."""
    neo4j = Neo4jReport(ok=True, uri=URI)
    ollama = OllamaReport(ok=False, base_url="http://127.0.0.1:11434", error="down")
    manifest = ManifestReport(ok=True, stored=stored)
    found = capabilities(make_settings(), neo4j, ollama, manifest)
    fix = found["search"].fix
    assert fix is not None and fix.startswith("start Ollama (`ollama serve`)"), fix
    assert (
        "or embed without Ollama: set KNOTWORK_EMBED_PROVIDER=use-multilingual, "
        "KNOTWORK_EMBED_MODEL=use-multilingual-v3 and KNOTWORK_EMBED_DIMENSION=512"
    ) in fix
    assert fix.endswith(", then run `knotwork reembed`") is reembed, fix
    # The chat model has no such stand-in: its fix stays Ollama's.
    assert "use-multilingual" not in (found["answers"].fix or "")


def test_a_model_not_pulled_is_told_to_pull_it_only() -> None:
    neo4j = Neo4jReport(ok=True, uri=URI)
    ollama = OllamaReport(
        ok=False,
        base_url="http://127.0.0.1:11434",
        version="0.5.0",
        models=[
            ModelReport(
                role="embedding",
                name="nomic-embed-text",
                present=False,
                pull_command="ollama pull nomic-embed-text",
            )
        ],
    )
    found = capabilities(make_settings(), neo4j, ollama, ManifestReport(ok=True))
    assert found["search"].fix == "ollama pull nomic-embed-text", found["search"]
