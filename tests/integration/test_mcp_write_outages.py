"""The MCP write tools when the graph cannot take a write, on the real Neo4j: with Neo4j cut
off at a TCP proxy a write is journaled (the file saved, the result saying so) and reaches the
graph on its own once Neo4j is back; with the vault's lease held by a writer that does not watch
the files, a write is refused with the holder's name before the file changes; with a watcher
holding it, the write is accepted for the watcher. Nothing is lost either way."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from knotwork.check.verify import verify_vault
from knotwork.core import Core
from knotwork.graph.lease import Lease
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.journal import Journal, journal_file
from knotwork.ingest.sync import sync_vault
from knotwork.settings import Settings
from tests.integration.conftest import put, stored_notes
from tests.integration.server import TcpProxy
from tests.integration.test_mcp import call, connected, refused
from tests.integration.test_mcp_tools import KITE

KEEP = "# Keep\n\nKeep knows [[Old]].\n"
OLD = "# Old\n\nOld links to [[Keep]].\n"


@pytest.fixture
async def writable(settings: Settings, vault: Path, core: Core, tmp_path: Path) -> Settings:
    """A synced vault of two notes, served with writes on and its own journal folder."""
    put(vault, "Keep.md", KEEP)
    put(vault, "Old.md", OLD)
    report = await sync_vault(Ingestor(core, root=vault, extract_enabled=False))
    assert report.notes == 2 and report.errors == []
    update = {"vault_path": vault, "extract": False, "state_dir": tmp_path / "state"}
    return settings.model_copy(update=update)


async def graph_paths(core: Core) -> list[str]:
    return sorted(await stored_notes(core))


async def test_writes_while_neo4j_is_down_are_journaled_and_reach_the_graph_later(
    writable: Settings, vault: Path, core: Core, proxy: TcpProxy, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="knotwork.serving.writers")
    through = writable.model_copy(update={"neo4j_uri": f"bolt://127.0.0.1:{proxy.port}"})
    journal = journal_file(through)
    async with connected(through, allow_writes=True) as client:
        assert (await call(client, "stats"))["notes"] == 2
        proxy.cut()
        written = await call(client, "upsert_note", path="Birds/Kite.md", content=KITE)
        deleted = await call(client, "delete_note", path="Old.md")
        synced = await refused(client, "sync")
        assert Journal(journal).paths() == ["Birds/Kite.md", "Old.md"]
        proxy.restore()
        for _ in range(120):  # the server replays on its own; no tool is called meanwhile
            if not journal.exists():
                break
            await asyncio.sleep(0.5)
        assert not journal.exists(), "the journal was replayed"
        found = await call(client, "retrieve", question="What circles over the old quarry?")
    for result, done in ((written, "saved"), (deleted, "deleted")):
        assert result["status"] == "journaled", result
        assert f"file is {done}" in result["detail"] and "journaled" in result["detail"]
        assert "catches up on its own" in result["detail"]
    assert (vault / "Birds/Kite.md").read_text() == KITE and not (vault / "Old.md").exists()
    assert "GraphUnavailableError: Neo4j is not reachable" in synced, synced
    assert await graph_paths(core) == ["Birds/Kite.md", "Keep.md"]
    assert found["citations"][0]["path"] == "Birds/Kite.md"
    assert list(await verify_vault(Ingestor(core, root=vault, extract_enabled=False))) == []
    # The replay's log names no channel: these writes came over MCP, not REST.
    said = [r.getMessage() for r in caplog.records if r.name == "knotwork.serving.writers"]
    assert "applied 2 pending note writes to the graph" in said, said
    assert not [line for line in said if "REST" in line], said


async def hold(core: Core, status: dict[str, Any]) -> Lease:
    lease = Lease(core.store, "default", 60)
    await lease.acquire(status)
    return lease


async def test_writes_while_a_non_watching_writer_holds_the_vault_are_refused(
    writable: Settings, vault: Path, core: Core
) -> None:
    async with connected(writable, allow_writes=True) as client:
        lease = await hold(core, {"mode": "cli-ingest", "watches": False})
        changed = await refused(client, "upsert_note", path="Keep.md", content="# Changed\n")
        new = await refused(client, "upsert_note", path="Birds/Kite.md", content=KITE)
        gone = await refused(client, "delete_note", path="Old.md")
        synced = await refused(client, "sync")
        await lease.release()
        retried = await call(client, "upsert_note", path="Birds/Kite.md", content=KITE)
    for reason in (changed, new, gone):
        assert "LeaseHeldError: nothing was written" in reason, reason
        assert lease.holder in reason and "cli-ingest" in reason
        assert "Retry once it has finished" in reason
        # Said over MCP: no REST status, and what a watcher would do for the write.
        assert "REST" not in reason and "202" not in reason, reason
        assert "`knotwork watch` instead: a note write made while it holds the vault" in reason
    assert "LeaseHeldError" in synced and lease.holder in synced
    assert (vault / "Keep.md").read_text() == KEEP, "the file is unchanged"
    assert (vault / "Old.md").read_text() == OLD
    assert retried["status"] == "done", "once the lease is free the same write goes through"
    assert await graph_paths(core) == ["Birds/Kite.md", "Keep.md", "Old.md"]


async def test_a_write_while_a_watcher_holds_the_vault_is_accepted_for_it(
    writable: Settings, vault: Path, core: Core
) -> None:
    async with connected(writable, allow_writes=True) as client:
        lease = await hold(core, {"mode": "inotify", "watches": True})
        written = await call(client, "upsert_note", path="Birds/Kite.md", content=KITE)
        await lease.release()
    assert written["status"] == "accepted" and written["ingested_by"] == lease.holder
    assert lease.holder in written["detail"] and "brings the graph in step" in written["detail"]
    assert (vault / "Birds/Kite.md").read_text() == KITE, "the watcher finds the file"
