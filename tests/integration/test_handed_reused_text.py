"""A write handed to a watcher whose text the graph held before (A, then B, then A again; a
delete then the same text back; a create then a delete): the graph showing the entry's hash
may be the version from before the writes, and the watcher may still apply the one between
them. While another entry of the path is pending and not shown, no entry of it goes by its
hash alone: should the watcher be killed after applying the write between, the replay brings
the graph back to the disk."""

from __future__ import annotations

from pathlib import Path

from knotwork.check.verify import verify_vault
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.serving.writes import delete_note, put_note
from tests.integration.conftest import ad_hoc, put
from tests.integration.test_watched_writes import LAPSE, _here, _watcher_lease, _writers

A, B = "# Aba\n\nFirst.\n", "# Aba\n\nBetween.\n"


async def test_a_text_written_back_is_not_taken_for_the_graphs_older_copy(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """A in the graph; B then A written (202 each). The graph holds A, from before B: the
    second write's entry stays. The watcher applies B (it read the file between the writes)
    and is killed: B's entry does not go by its hash while A's is unshown; the replay puts A."""
    here = _here(core, vault)
    ingestor = Ingestor(here, root=vault, extract_enabled=False)  # what the watcher writes
    put(vault, "Aba.md", A)
    await ingestor.upsert_path("Aba.md")
    await _watcher_lease(here, vault, ttl_s=30)  # killed: never renewed nor given back
    async with _writers(here, tmp_path / "journal") as writers:
        for text in (B, A):
            assert (await put_note(here, writers, "Aba.md", text)).status == "accepted"
        assert await writers.replay_once() == 0
        assert len(writers.journal.held()) == 2, "the graph's A is the one from before B"
        await ingestor.upsert_text("Aba.md", B)  # the watcher's read of the file between
        assert await writers.replay_once() == 0
        assert len(writers.journal.held()) == 2, "the graph's B is not the disk's"
        await ad_hoc(here, LAPSE, {"vault": here.settings.vault_name}, write=True)
        assert await writers.replay_once() == 1 and writers.journal.held() == set()
        assert await verify_vault(ingestor) == []


async def test_a_delete_then_the_same_text_back_keeps_both_entries(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """A note deleted, then written again with the text it had: the graph holding that text
    is the note from before the delete; the watcher applies the delete and is killed. Neither
    entry goes by its own evidence alone; the replay puts the note back."""
    here = _here(core, vault)
    ingestor = Ingestor(here, root=vault, extract_enabled=False)
    put(vault, "Back.md", A)
    put(vault, "Kept.md", "# Kept\n")  # the folder not empty while the note is deleted
    for path in ("Back.md", "Kept.md"):
        await ingestor.upsert_path(path)
    await _watcher_lease(here, vault, ttl_s=30)
    async with _writers(here, tmp_path / "journal") as writers:
        assert (await delete_note(here, writers, "Back.md")).status == "accepted"
        assert (await put_note(here, writers, "Back.md", A)).status == "accepted"
        assert await writers.replay_once() == 0
        assert len(writers.journal.held()) == 2, "the graph's note is the one deleted"
        await ingestor.delete("Back.md")  # the watcher saw the file gone, not back yet
        assert await writers.replay_once() == 0
        assert len(writers.journal.held()) == 2, "the graph shows the delete, not the disk"
        await ad_hoc(here, LAPSE, {"vault": here.settings.vault_name}, write=True)
        assert await writers.replay_once() == 1 and writers.journal.held() == set()
        assert await verify_vault(ingestor) == []


async def test_a_create_then_a_delete_keeps_both_entries(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """A new note written then deleted: the graph holding no note is the state from before
    the create; the watcher applies the create (it read the file before the delete) and is
    killed. Both entries stay; the replay deletes the note again."""
    here = _here(core, vault)
    ingestor = Ingestor(here, root=vault, extract_enabled=False)
    await _watcher_lease(here, vault, ttl_s=30)
    async with _writers(here, tmp_path / "journal") as writers:
        assert (await put_note(here, writers, "Brief.md", A)).status == "accepted"
        assert (await delete_note(here, writers, "Brief.md")).status == "accepted"
        assert await writers.replay_once() == 0
        assert len(writers.journal.held()) == 2, "no note yet: the graph from before"
        await ingestor.upsert_text("Brief.md", A)  # the watcher's read before the delete
        assert await writers.replay_once() == 0
        assert len(writers.journal.held()) == 2, "the graph shows the create, not the disk"
        await ad_hoc(here, LAPSE, {"vault": here.settings.vault_name}, write=True)
        assert await writers.replay_once() == 1 and writers.journal.held() == set()
        assert await verify_vault(ingestor) == []


async def test_a_live_watcher_that_applied_every_write_empties_the_journal(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """The same A, B, A with a watcher that applies each write: the entries go once the graph
    showed the disk (the last write's text) to an entry seen at the previous look too."""
    here = _here(core, vault)
    ingestor = Ingestor(here, root=vault, extract_enabled=False)
    put(vault, "Aba.md", A)
    await ingestor.upsert_path("Aba.md")
    await _watcher_lease(here, vault, ttl_s=30)
    async with _writers(here, tmp_path / "journal") as writers:
        for text in (B, A):
            assert (await put_note(here, writers, "Aba.md", text)).status == "accepted"
        assert await writers.replay_once() == 0 and len(writers.journal.held()) == 2
        await ingestor.upsert_text("Aba.md", B)
        await ingestor.upsert_path("Aba.md")  # and the last write
        assert await writers.replay_once() == 0 and writers.journal.held() == set()
        assert await verify_vault(ingestor) == []
