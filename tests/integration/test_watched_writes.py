"""Writes handed to a watcher (202 ``accepted``) reach the graph even when that watcher never
sees them — killed with its lease standing, or stopping while the write was under way: they
are journaled, and the replay applies them once the lease is free. The writes the watcher
applied leave the journal (once the graph holds what each intended, however slowly its file
changes), and replaying one again leaves the graph as it was."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from knotwork.check.verify import snapshot, verify_vault
from knotwork.core import Core
from knotwork.graph.lease import Lease
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.journal import Journal
from knotwork.serving import writes as note_writes
from knotwork.serving.writers import VaultWriters
from knotwork.serving.writes import delete_note, put_note
from knotwork.vault.write import case_variants
from knotwork.watch.queue import WatchStatus
from knotwork.watch.watcher import VaultWatcher
from tests.integration.conftest import ad_hoc, put

LAPSE = "MATCH (l:Lease {vault: $vault}) SET l.expires_at = datetime() - duration('PT1S')"


def _here(core: Core, vault: Path, **settings: object) -> Core:
    update = {"vault_path": vault, "extract": False, **settings}
    return dataclasses.replace(core, settings=core.settings.model_copy(update=update))


async def _watcher_lease(here: Core, vault: Path, ttl_s: int) -> Lease:
    """A watcher's lease on the vault folder, as a running watcher's first beat takes it."""
    lease = Lease(here.store, here.settings.vault_name, ttl_s)
    status = WatchStatus(folder=str(await asyncio.to_thread(vault.resolve)))
    await lease.acquire(status.report(0))
    return lease


@contextlib.asynccontextmanager
async def _writers(here: Core, journal: Path) -> AsyncIterator[VaultWriters]:
    """The API's writers; their background extraction (a replay asks for a pass) is stopped
    before the test's driver closes, or it would run on a closed driver."""
    writers = VaultWriters(here, Journal(journal))
    try:
        yield writers
    finally:
        await writers.extraction.stop()


async def test_writes_handed_to_a_killed_watcher_are_replayed_once_its_lease_lapses(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """`kill -9` of the watcher: its lease stands until its TTL and the writes answered 202
    meanwhile have no one to see them; the replay applies them once the lease lapsed."""
    here = _here(core, vault)
    put(vault, "Old.md", "# Old\n\nFirst.\n")
    put(vault, "Gone.md", "# Gone\n")
    ingestor = Ingestor(here, root=vault, extract_enabled=False)
    for path in ("Old.md", "Gone.md"):
        await ingestor.upsert_path(path)
    killed = await _watcher_lease(here, vault, ttl_s=30)  # never renewed nor given back
    async with _writers(here, tmp_path / "journal") as writers:
        results = [
            await put_note(here, writers, "AfterKill.md", "# After kill\n\nNew.\n"),
            await put_note(here, writers, "Old.md", "# Old\n\nSecond.\n"),
            await delete_note(here, writers, "Gone.md"),
        ]
        assert [(r.status, r.ingested_by) for r in results] == [("accepted", killed.holder)] * 3
        assert await writers.replay_once() == 0, "the dead watcher's lease stands until its TTL"
        assert await verify_vault(ingestor) != [], "no one applied the writes yet"
        await ad_hoc(here, LAPSE, {"vault": here.settings.vault_name}, write=True)  # TTL past
        assert await writers.replay_once() == 3
        assert writers.journal.paths() == []
        assert await verify_vault(ingestor) == []


async def test_a_write_the_watcher_applied_leaves_the_journal_and_its_replay_changes_nothing(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    here = _here(core, vault)
    ingestor = Ingestor(here, root=vault, extract_enabled=False)  # what the watcher writes
    watcher = await _watcher_lease(here, vault, ttl_s=30)
    async with _writers(here, tmp_path / "journal") as writers:
        assert (await put_note(here, writers, "Seen.md", "# Seen\n")).status == "accepted"
        assert writers.journal.paths() == ["Seen.md"]
        for _ in range(2):
            assert await writers.replay_once() == 0, "the watcher holds the lease"
            assert writers.journal.paths() == ["Seen.md"], "not applied yet: kept"
        await ingestor.upsert_path("Seen.md")  # the watcher sees the file change
        assert await writers.replay_once() == 0
        assert writers.journal.paths() == [], "applied by the watcher: taken back"
        # An older version's entry says nothing of its write: it stays one look more (its
        # writer may not have changed the file yet, the graph showing the old version).
        put(vault, "Older.md", "# Older\n")
        writers.journal.add("Older.md")
        await ingestor.upsert_path("Older.md")
        assert await writers.replay_once() == 0 and writers.journal.paths() == ["Older.md"]
        assert await writers.replay_once() == 0 and writers.journal.paths() == []

        # A write the watcher applied just before it stopped: replayed again, nothing changes.
        twice = await put_note(here, writers, "Twice.md", "# Twice\n\nOnce.\n")
        assert twice.status == "accepted"
        await ingestor.upsert_path("Twice.md")
        vault_name = here.settings.vault_name
        before = await snapshot(here.store, vault_name)
        count = "MATCH (r:Revision {vault: $vault}) RETURN count(r) AS n"
        revisions = await ad_hoc(here, count, {"vault": vault_name})
        await watcher.release()
        assert await writers.replay_once() == 1
        assert writers.journal.paths() == []
        assert await snapshot(here.store, vault_name) == before
        assert await ad_hoc(here, count, {"vault": vault_name}) == revisions
        assert await verify_vault(ingestor) == []


async def test_a_write_that_read_the_lease_before_the_watcher_stopped_is_replayed(
    core: Core, vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watcher stops (SIGTERM) while a write is under way: the write read the lease before
    it said it stops, so it is answered 202, but the watcher's last look at the changes waiting
    came before the file changed; it exits and gives the lease back. The replay applies it."""
    here = _here(core, vault, watch_debounce_ms=100, watch_rescan_s=0, lease_ttl_s=5)
    ingestor = Ingestor(here, root=vault, extract_enabled=False)
    watcher = VaultWatcher(ingestor, Lease(here.store, here.settings.vault_name, 5))
    ready = asyncio.Event()
    running = asyncio.create_task(watcher.run(ready=ready))
    await asyncio.wait_for(ready.wait(), 60)

    async def watcher_stops_meanwhile(*args: object) -> object:
        watcher.stop()
        await asyncio.wait_for(running, 30)  # stopped and its lease given back
        return await case_variants(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(note_writes, "case_variants", watcher_stops_meanwhile)
    async with _writers(here, tmp_path / "journal") as writers:
        result = await put_note(here, writers, "Late.md", "# Late\n\nWritten as it stopped.\n")
        assert result.status == "accepted" and running.done()
        assert await verify_vault(ingestor) != [], "the watcher did not see it"
        assert await writers.replay_once() == 1
        assert writers.journal.paths() == []
        assert await verify_vault(ingestor) == []
