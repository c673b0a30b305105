"""Disk and graph converge when Neo4j is away during a REST write: the write is journaled and
replayed once Neo4j answers again, with no user action; a delete whose file is already gone
still removes the note from the graph."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from fastapi.testclient import TestClient

from knotwork.api import create_app
from knotwork.check.verify import verify_vault
from knotwork.core import open_core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.journal import Journal, journal_file
from knotwork.settings import Settings
from tests.integration.conftest import Neo4jTarget, stored_notes
from tests.integration.server import TcpProxy


def graph_paths(settings: Settings) -> list[str]:
    async def read() -> list[str]:
        async with open_core(settings) as core:
            return sorted(await stored_notes(core))

    return asyncio.run(read())


def verified(settings: Settings, vault: Path) -> list[object]:
    async def check() -> list[object]:
        async with open_core(settings) as core:
            return list(await verify_vault(Ingestor(core, root=vault, extract_enabled=False)))

    return asyncio.run(check())


def test_writes_while_neo4j_is_down_reach_the_graph_once_it_is_back(
    settings: Settings, vault: Path, tmp_path: Path, empty_db: Neo4jTarget, proxy: TcpProxy
) -> None:
    through = settings.model_copy(
        update={
            "neo4j_uri": f"bolt://127.0.0.1:{proxy.port}",
            "vault_path": vault,
            "extract": False,
            "state_dir": tmp_path / "state",
        }
    )
    journal = journal_file(through)
    assert journal.parent == tmp_path / "state" and vault not in journal.parents
    markdown = {"Content-Type": "text/markdown"}
    with TestClient(create_app(through), headers=markdown) as client:
        assert client.put("/notes/Old.md", content="# Old\n\nOld links to [[New]].\n").is_success
        assert client.put("/notes/Keep.md", content="# Keep\n\nKeep knows [[Old]].\n").is_success
        proxy.cut()
        put = client.put("/notes/New.md", content="# New\n\nNew replaces [[Old]].\n")
        assert put.status_code == 503, put.text
        assert put.json()["status"] == "journaled" and "saved" in put.json()["detail"]
        assert (vault / "New.md").exists()
        gone = client.delete("/notes/Old.md")
        assert gone.status_code == 503 and "deleted" in gone.json()["detail"]
        assert not (vault / "Old.md").exists()
        assert Journal(journal).paths() == ["New.md", "Old.md"]
        proxy.restore()
        deadline = time.monotonic() + 60
        while journal.exists() and time.monotonic() < deadline:
            time.sleep(0.5)  # the API replays on its own; no request is made meanwhile
        assert not journal.exists(), "the journal was replayed"
        assert graph_paths(settings) == ["Keep.md", "New.md"]
        assert verified(settings, vault) == []
        assert client.delete("/notes/Old.md").status_code == 404


def test_delete_of_a_note_whose_file_is_gone_removes_it_from_the_graph(
    settings: Settings, vault: Path, tmp_path: Path, empty_db: Neo4jTarget
) -> None:
    app = create_app(
        settings.model_copy(
            update={"vault_path": vault, "extract": False, "state_dir": tmp_path / "state"}
        )
    )
    with TestClient(app, headers={"Content-Type": "text/markdown"}) as client:
        assert client.put("/notes/Gone.md", content="# Gone\n").status_code == 200
        (vault / "Gone.md").unlink()  # removed outside Knotwork, with no watcher running
        response = client.delete("/notes/Gone.md")
        assert response.status_code == 200, response.text
        assert response.json()["status"] == "deleted"
        assert graph_paths(settings) == []
        assert client.delete("/notes/Gone.md").status_code == 404
