"""A note changed while a rescan runs, after the rescan read it: written once, as it is on disk
when the rescan drafts it, so the change the watcher queued meanwhile finds nothing to do.
Without that, the rescan wrote the text it had read (its chunks embedded, a revision, chunks
left for the model) and the queued change wrote the note again. A note whose names changed
meanwhile is written as read and then by its change, so mentions stay right."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from knotwork.check.verify import verify_vault
from knotwork.core import Core
from knotwork.graph.lease import Lease
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import Progress, sync_vault
from knotwork.watch.watcher import VaultWatcher
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc, put
from tests.integration.test_watcher import assert_verified, settle

BOB = "# Bob\n\nBob knows [[Alice]].\n"
READ = "# Bob\n\nBob knows [[Alice]]. Firstedit.\n"  # on disk when the rescan reads the vault
NOW = "# Bob\n\nBob knows [[Alice]]. Secondedit.\n"  # written once it has read every note
RENAMED = "---\naliases: [Robert]\n---\n# Bob\n\nBob knows [[Alice]]. Secondedit.\n"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    put(root, "Alice.md", "# Alice\n\nAlice plans the launch with Robert.\n")
    put(root, "Bob.md", BOB)
    return root


def _edit_once_read(vault: Path, text: str) -> Progress:
    """A sync's progress that writes Bob.md with ``text`` as the sync has read every note."""
    edited: list[bool] = []

    def progress(done: int, total: int, what: str) -> None:
        if not edited and what.startswith("reading notes") and done == total:
            edited.append(True)
            (vault / "Bob.md").write_text(text)

    return progress


async def _synced_then_edited(core: Core, vault: Path, fake_ollama: FakeOllama) -> None:
    """The vault synced, then Bob.md edited while nothing watched (so a sync has it to write)."""
    await sync_vault(Ingestor(core, root=vault, vault="w", extract_enabled=False))
    (vault / "Bob.md").write_text(READ)
    fake_ollama.calls.clear()


@contextlib.asynccontextmanager
async def _watching(core: Core, vault: Path, progress: Progress) -> AsyncIterator[VaultWatcher]:
    """A watcher whose start-up rescan reports to ``progress``, run until the body ends."""
    tuned = dataclasses.replace(
        core,
        settings=core.settings.model_copy(
            update={"watch_debounce_ms": 100, "watch_rescan_s": 0, "lease_ttl_s": 5}
        ),
    )
    ingestor = Ingestor(tuned, root=vault, vault="w", extract_enabled=False)
    running = VaultWatcher(ingestor, Lease(tuned.store, "w", 5))
    ready = asyncio.Event()
    task = asyncio.create_task(running.run(progress, ready))
    try:
        await asyncio.wait_for(ready.wait(), 60)
        yield running
    finally:
        running.stop()
        await asyncio.wait_for(task, 30)


async def _bob_revisions(core: Core) -> list[str]:
    rows = await ad_hoc(
        core,
        "MATCH (r:Revision {vault: 'w', path: 'Bob.md'}) RETURN r.kind AS kind ORDER BY r.at",
    )
    return [r["kind"] for r in rows]


def _embedded(fake_ollama: FakeOllama, word: str) -> int:
    return sum(word in text for text in fake_ollama.embedded_texts())


async def test_a_note_edited_during_the_start_up_rescan_is_written_once(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    await _synced_then_edited(core, vault, fake_ollama)
    async with _watching(core, vault, _edit_once_read(vault, NOW)) as running:
        await settle(running, since=0)  # the edit's event came, and was applied
        await assert_verified(running)
    assert _embedded(fake_ollama, "Firstedit") == 0, "the text read first is never embedded"
    assert _embedded(fake_ollama, "Secondedit") == 1
    assert await _bob_revisions(core) == ["upsert", "upsert"]  # the first sync's, then one


async def test_a_note_whose_names_change_during_the_rescan_is_written_as_read_then_again(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """The rescan resolved the other notes' mentions against the names it read: written with
    others, the alias would leave Alice's "Robert" unlinked. The queued change links it."""
    await _synced_then_edited(core, vault, fake_ollama)
    async with _watching(core, vault, _edit_once_read(vault, RENAMED)) as running:
        await settle(running, since=0)
        await assert_verified(running)
    assert _embedded(fake_ollama, "Firstedit") == 1
    assert await _bob_revisions(core) == ["upsert", "upsert", "upsert"]
    rows = await ad_hoc(
        core,
        "MATCH (:Note {vault: 'w', path: 'Alice.md'})-[m:MENTIONS]->(n:Note) RETURN n.path AS p",
    )
    assert rows == [{"p": "Bob.md"}]


async def test_a_sync_writes_a_note_changed_after_it_was_read_as_it_is_now(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """`knotwork ingest` alike: the graph ends as the folder is, not as it was read."""
    await _synced_then_edited(core, vault, fake_ollama)
    ingestor = Ingestor(core, root=vault, vault="w", extract_enabled=False)
    report = await sync_vault(ingestor, _edit_once_read(vault, NOW))
    assert report.errors == []
    assert await verify_vault(ingestor) == []
    assert _embedded(fake_ollama, "Firstedit") == 0
