"""What doctor and /health say to fix when Neo4j or the vault folder cannot be used: the fix
fits the failure."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import cast

from knotwork.check.folder import vault_folder_problem
from knotwork.check.health import capabilities
from knotwork.check.reports import Capability, ManifestReport, Neo4jReport
from knotwork.core import Core
from tests.conftest import make_settings


def _graph_fix(error: str, credentials_refused: bool = False) -> str | None:
    neo4j = Neo4jReport(
        ok=False, uri="bolt://127.0.0.1:7687", error=error, credentials_refused=credentials_refused
    )
    found = capabilities(make_settings(), neo4j, None, ManifestReport(ok=False))
    assert not found["ingest"].ready and found["ingest"].reason == error
    return found["ingest"].fix


def test_a_refused_password_is_not_told_to_start_neo4j() -> None:
    fix = _graph_fix(
        "Neo4j rejected the credentials: The client is unauthorized due to authentication "
        "failure. Check KNOTWORK_NEO4J_USER and KNOTWORK_NEO4J_PASSWORD.",
        credentials_refused=True,
    )
    assert fix is not None and "KNOTWORK_NEO4J_PASSWORD to the server's" in fix
    assert "start Neo4j" not in fix


def test_a_server_that_does_not_answer_is_told_to_start() -> None:
    fix = _graph_fix("Neo4j is not reachable: Couldn't connect to 127.0.0.1:7687")
    assert fix is not None and "knotwork neo4j start" in fix


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
