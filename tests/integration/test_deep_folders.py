"""A folder nested far deeper than any vault's: a REST write never makes one (422 naming the
cap), and one made on disk is synced as any other (it stopped every sync with RecursionError)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from knotwork.api import create_app
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.settings import Settings
from knotwork.vault.write import MAX_FOLDER_DEPTH
from tests.deep_folders import chain, nested
from tests.integration.conftest import Neo4jTarget, put, stored_notes

KEY = "k" * 24


@pytest.fixture
def client(settings: Settings, vault: Path, empty_db: Neo4jTarget) -> Iterator[TestClient]:
    app = create_app(
        settings.model_copy(
            update={"vault_path": vault, "extract": False, "api_key": SecretStr(KEY)}
        )
    )
    headers = {"X-API-Key": KEY, "Content-Type": "text/markdown"}
    with TestClient(app, headers=headers) as test_client:
        yield test_client


def test_a_write_deeper_than_the_cap_is_422_and_makes_no_folder(
    client: TestClient, vault: Path
) -> None:
    deep = client.put(f"/notes/{chain(2000)}/x.md", content="x")  # the review's path
    assert deep.status_code == 422, deep.text
    detail = deep.json()["detail"]
    assert "2000 folders deep" in detail and f"at most {MAX_FOLDER_DEPTH} folders" in detail
    over = client.put(f"/notes/{chain(MAX_FOLDER_DEPTH + 1)}/x.md", content="x")
    assert over.status_code == 422, over.text
    assert not (vault / "d").exists()
    at_cap = client.put(f"/notes/{chain(MAX_FOLDER_DEPTH)}/x.md", content="# X\n")
    assert at_cap.status_code == 200, at_cap.text
    assert client.post("/sync").status_code == 200


async def test_a_sync_takes_a_folder_nested_1500_deep_made_on_disk(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """Deeper than os.walk's recursion reached (~1,000 levels), within PATH_MAX: its note is
    synced as any other, and so is its delete."""
    put(vault, "top.md", "# Top\n")
    deep = f"{chain(1500)}/deep.md"
    with nested(vault, 1500, {1500: "deep.md"}):
        report = await sync_vault(ingestor)
        assert not report.errors and report.written == 2
        assert sorted(await stored_notes(core, "t")) == [deep, "top.md"]
    report = await sync_vault(ingestor)  # the chain taken apart: its note is gone
    assert not report.errors and list(await stored_notes(core, "t")) == ["top.md"]
