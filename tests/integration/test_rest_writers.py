"""The API's writers of one vault: a whole-vault sync never runs beside a direct note write, and
a write that changed its file reaches the graph whatever cuts it off (the journal replays it)."""

from __future__ import annotations

import asyncio
import dataclasses
import errno
from pathlib import Path

import pytest

from knotwork.check.verify import verify_vault
from knotwork.core import Core, open_core
from knotwork.errors import (
    GraphTransientError,
    LeaseHeldError,
    StorageFullError,
    WriteConflictError,
)
from knotwork.graph.lease import Lease
from knotwork.ingest.changes import NoteOutcome
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.journal import Journal
from knotwork.serving import writes as note_writes
from knotwork.serving.writers import VaultWriters
from knotwork.serving.writes import put_note
from knotwork.settings import Settings
from knotwork.watch.queue import WatchStatus
from tests.integration.conftest import put
from tests.integration.server import TcpProxy


async def test_a_sync_starting_while_a_write_waits_for_the_lease_waits_for_that_write(
    core: Core, tmp_path: Path
) -> None:
    writers = VaultWriters(core, Journal(tmp_path / "journal"))
    order: list[str] = []

    async def put() -> None:
        async with writers.write() as way:
            order.append(f"write {way.kind}")
            await asyncio.sleep(0.2)  # the note written and ingested
            order.append("write done")

    async def sync() -> None:
        async with writers.sync():
            order.append("sync")  # the sync's plan is read here

    # The write is held between "not syncing" and holding the lease, where a sync can start.
    await writers._turn.acquire()
    write = asyncio.create_task(put())
    await asyncio.sleep(0.05)
    started = asyncio.create_task(sync())
    await asyncio.sleep(0.05)
    writers._turn.release()
    await asyncio.gather(write, started)

    assert order == ["write direct", "write done", "sync"]
    # Writes made once the sync has begun are queued for it, and the lease is given back.
    async with writers.write() as way:
        assert way.kind == "direct"
    assert writers._direct == 0 and writers._no_direct.is_set()


async def test_a_write_that_finds_the_graph_offline_does_not_hold_up_a_sync(
    settings: Settings, tmp_path: Path, proxy: TcpProxy
) -> None:
    through = settings.model_copy(
        update={"neo4j_uri": f"bolt://127.0.0.1:{proxy.port}", "neo4j_unavailable_after_s": 0.5}
    )
    async with open_core(through) as proxied:
        writers = VaultWriters(proxied, Journal(tmp_path / "journal"))
        proxy.cut()
        async with writers.write() as way:
            assert way.kind == "offline"
        assert writers._direct == 0 and writers._no_direct.is_set()
        proxy.restore()


@pytest.mark.parametrize("cut", [GraphTransientError("out of retries"), asyncio.CancelledError()])
async def test_a_direct_write_cut_off_after_its_file_changed_is_replayed(
    core: Core, vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cut: BaseException
) -> None:
    """An error Neo4j raises past the store's retries, or the request cancelled (a client gone,
    a lease lost), between the file and the graph: the path stays journaled and is replayed."""
    here = dataclasses.replace(
        core, settings=core.settings.model_copy(update={"vault_path": vault, "extract": False})
    )
    writers = VaultWriters(here, Journal(tmp_path / "journal"))
    assert (await put_note(here, writers, "Old.md", "# Old\n\nFirst.\n")).status == "done"
    assert writers.journal.paths() == []

    async def cut_off(self: Ingestor, *args: object, **kwargs: object) -> NoteOutcome:
        raise cut

    monkeypatch.setattr(Ingestor, "upsert_text", cut_off)
    if isinstance(cut, asyncio.CancelledError):
        with pytest.raises(asyncio.CancelledError):
            await put_note(here, writers, "Old.md", "# Old\n\nSecond.\n")
    else:  # the file is saved: said so (503 "journaled"), never a bare 500
        result = await put_note(here, writers, "Old.md", "# Old\n\nSecond.\n")
        assert result.status == "journaled"
    assert (vault / "Old.md").read_text() == "# Old\n\nSecond.\n"
    assert writers.journal.paths() == ["Old.md"]

    monkeypatch.undo()
    assert await writers.replay_once() == 1
    assert writers.journal.paths() == []
    ingestor = Ingestor(here, root=vault, extract_enabled=False)
    assert await verify_vault(ingestor) == []


async def test_a_write_refused_before_its_file_changed_leaves_no_journal_entry(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    here = dataclasses.replace(
        core, settings=core.settings.model_copy(update={"vault_path": vault})
    )
    writers = VaultWriters(here, Journal(tmp_path / "journal"))
    put(vault, "Kite.md", "# Kite\n")
    with pytest.raises(WriteConflictError):  # a case variant of a note on disk
        await put_note(here, writers, "kite.md", "# kite\n")
    assert writers.journal.paths() == [] and not (vault / "kite.md").exists()


async def test_a_full_disk_is_a_clear_refusal_with_nothing_written_or_journaled(
    core: Core, vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = dataclasses.replace(
        core, settings=core.settings.model_copy(update={"vault_path": vault})
    )
    writers = VaultWriters(here, Journal(tmp_path / "journal"))

    def full(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(note_writes, "write_note_file", full)
    with pytest.raises(StorageFullError, match="no space left on the vault's file system"):
        await note_writes.put_note(here, writers, "Kite.md", "# Kite\n")
    assert writers.journal.paths() == [] and not (vault / "Kite.md").exists()
    monkeypatch.undo()

    monkeypatch.setattr(Journal, "add", full)
    with pytest.raises(StorageFullError, match="journal of pending writes"):
        await note_writes.put_note(here, writers, "Kite.md", "# Kite\n")
    assert not (vault / "Kite.md").exists()


STEAL_LEASE = """
MATCH (l:Lease {vault: $vault})
SET l.holder = 'another-writer', l.host = 'elsewhere', l.pid = 1,
    l.expires_at = datetime() + duration('PT1H')
"""
FREE_LEASE = "MATCH (l:Lease {vault: $vault}) SET l.expires_at = datetime() - duration('PT1S')"


@pytest.mark.parametrize("op", ["put", "delete"])
async def test_a_lease_lost_after_the_file_changed_is_accepted_and_replayed_not_refused(
    core: Core, vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, op: str
) -> None:
    """The file is not put back when the lease goes mid-write, so the answer is not a
    refusal: the write is accepted, its journal entry stays, and the replay applies it once
    the lease can be had again."""
    # A heartbeat every 0.2 s (the setting's floor is 5 s; model_copy does not validate).
    here = dataclasses.replace(
        core,
        settings=core.settings.model_copy(
            update={"vault_path": vault, "extract": False, "lease_ttl_s": 0.6}
        ),
    )
    writers = VaultWriters(here, Journal(tmp_path / "journal"))
    assert (await put_note(here, writers, "Old.md", "# Old\n\nFirst.\n")).status == "done"
    name = "upsert_text" if op == "put" else "delete"

    async def lease_taken(self: Ingestor, *args: object, **kwargs: object) -> NoteOutcome:
        await here.driver.execute_query(STEAL_LEASE, vault=writers.vault)
        await asyncio.sleep(5)  # the heartbeat finds the lease gone and cancels the write
        raise AssertionError("the write went on without its lease")

    monkeypatch.setattr(Ingestor, name, lease_taken)
    if op == "put":
        result = await put_note(here, writers, "Old.md", "# Old\n\nSecond.\n")
        assert (vault / "Old.md").read_text() == "# Old\n\nSecond.\n"
    else:
        result = await note_writes.delete_note(here, writers, "Old.md")
        assert not (vault / "Old.md").exists()
    assert (result.status, result.ingested_by) == ("accepted", writers.holder)
    assert writers.journal.paths() == ["Old.md"]

    monkeypatch.undo()
    assert await writers.replay_once() == 0, "the other writer holds the lease"
    await here.driver.execute_query(FREE_LEASE, vault=writers.vault)
    assert await writers.replay_once() == 1
    assert writers.journal.paths() == []
    ingestor = Ingestor(here, root=vault, extract_enabled=False)
    assert await verify_vault(ingestor) == []


async def test_a_watcher_that_is_stopping_takes_no_more_rest_writes(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """A write left to a watcher that stops before it sees it would leave the graph stale: once
    the watcher's lease says it stops, a write is refused (409) with nothing written."""
    here = dataclasses.replace(
        core, settings=core.settings.model_copy(update={"vault_path": vault, "extract": False})
    )
    watcher = Lease(here.store, here.settings.vault_name, 30)
    status = WatchStatus(folder=str(await asyncio.to_thread(vault.resolve)))
    await watcher.acquire(status.report(0))
    writers = VaultWriters(here, Journal(tmp_path / "journal"))
    result = await put_note(here, writers, "New.md", "# New\n")
    assert (result.status, result.ingested_by) == ("accepted", watcher.holder)
    status.stopping = True
    await watcher.renew(status.report(0))
    with pytest.raises(LeaseHeldError):
        await put_note(here, writers, "Later.md", "# Later\n")
    assert not (vault / "Later.md").exists()
    assert writers.journal.paths() == ["New.md"], "the accepted write's, for the replay"
    await watcher.release()


async def test_a_note_sent_with_a_byte_order_mark_is_ingested_as_its_file_reads(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """The file keeps the mark; the graph holds what any read of the file gives (else every
    later sync would find the note changed and embed it again)."""
    here = dataclasses.replace(
        core, settings=core.settings.model_copy(update={"vault_path": vault, "extract": False})
    )
    writers = VaultWriters(here, Journal(tmp_path / "journal"))
    result = await put_note(here, writers, "Bom.md", "\ufeff# Bom\n\nText.\n")
    assert result.status == "done"
    assert (vault / "Bom.md").read_bytes().startswith(b"\xef\xbb\xbf# Bom")
    assert await verify_vault(Ingestor(here, root=vault, extract_enabled=False)) == []
