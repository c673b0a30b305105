"""When the entry of a write handed to a watcher may go, in looks and in time. By its hash at
the second look at the earliest: the graph may hold the write's text from before it, while the
watcher still applies a user's change (an edit, a new note, a move) it read before the write,
which would undo the write once written. And an entry whose write never marked its file written
(a writer killed between its entry and its file) goes after ``UNLANDED_FOR_S`` once the graph
shows the disk, instead of staying while the watcher lives and holding back the path's later
entries. A look locks only the notes whose entries may go at it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from knotwork.check.verify import verify_vault
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.journal import Journal
from knotwork.ingest.journal_entry import DELETED
from knotwork.serving import watched
from knotwork.serving.writes import delete_note, put_note
from knotwork.text.digest import text_hash
from tests.integration.conftest import ad_hoc, put
from tests.integration.test_watched_writes import LAPSE, _here, _watcher_lease, _writers

A, B = "# Aba\n\nFirst.\n", "# Aba\n\nThe user's edit.\n"


async def _kept(here: Core, vault: Path, *paths: str) -> Ingestor:
    """These notes on disk and in the graph (one more, so no delete empties the folder); what
    the watcher writes."""
    ingestor = Ingestor(here, root=vault, extract_enabled=False)
    for path, text in (*((p, A) for p in paths), ("Kept.md", "# Kept\n")):
        put(vault, path, text)
        await ingestor.upsert_path(path)
    return ingestor


async def test_a_write_of_the_graphs_old_text_outlives_the_users_edit_being_applied(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """The graph holds A; the user edits the file to B (the watcher read it, and embeds);
    then A is written back (202). The graph holding A at the first look is the old note: the
    watcher's B lands after it and the watcher is killed. The entry stays; the replay puts A."""
    here = _here(core, vault)
    ingestor = await _kept(here, vault, "Aba.md")
    await _watcher_lease(here, vault, ttl_s=30)  # killed: never renewed nor given back
    async with _writers(here, tmp_path / "journal") as writers:
        put(vault, "Aba.md", B)  # the user's edit, read by the watcher
        assert (await put_note(here, writers, "Aba.md", A)).status == "accepted"
        assert await writers.replay_once() == 0
        assert writers.journal.paths() == ["Aba.md"], "the graph's A is the one from before"
        await ingestor.upsert_text("Aba.md", B)  # the watcher's late note
        assert await writers.replay_once() == 0 and writers.journal.paths() == ["Aba.md"]
        await ad_hoc(here, LAPSE, {"vault": here.settings.vault_name}, write=True)
        assert await writers.replay_once() == 1 and writers.journal.held() == set()
        assert await verify_vault(ingestor) == []


async def test_a_delete_of_a_note_the_user_just_made_outlives_its_creation_being_applied(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """The user makes a note (the watcher read it) and it is deleted at once (202): no note
    in the graph at the first look is the state from before; the watcher's note lands, the
    watcher is killed. The entry stays; the replay deletes the note."""
    here = _here(core, vault)
    ingestor = await _kept(here, vault)
    await _watcher_lease(here, vault, ttl_s=30)
    async with _writers(here, tmp_path / "journal") as writers:
        put(vault, "New.md", A)
        assert (await delete_note(here, writers, "New.md")).status == "accepted"
        assert await writers.replay_once() == 0
        assert writers.journal.paths() == ["New.md"], "no note yet: the graph from before"
        await ingestor.upsert_text("New.md", A)
        assert await writers.replay_once() == 0 and writers.journal.paths() == ["New.md"]
        await ad_hoc(here, LAPSE, {"vault": here.settings.vault_name}, write=True)
        assert await writers.replay_once() == 1 and writers.journal.held() == set()
        assert await verify_vault(ingestor) == []


async def test_a_write_back_of_a_moved_note_outlives_the_move_being_applied(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """The user moves X.md to Y.md (the watcher applies it), and X.md is written back with
    the same text (202): the graph's X.md at the first look is the note from before the move;
    the watcher's move lands, the watcher is killed. The entry stays; the replay puts X.md."""
    here = _here(core, vault)
    ingestor = await _kept(here, vault, "X.md")
    await _watcher_lease(here, vault, ttl_s=30)
    async with _writers(here, tmp_path / "journal") as writers:
        (vault / "X.md").rename(vault / "Y.md")
        assert (await put_note(here, writers, "X.md", A)).status == "accepted"
        assert await writers.replay_once() == 0
        assert writers.journal.paths() == ["X.md"], "the graph's X.md is the one moved"
        await ingestor.rename("X.md", "Y.md", A)
        assert await writers.replay_once() == 0 and writers.journal.paths() == ["X.md"]
        await ad_hoc(here, LAPSE, {"vault": here.settings.vault_name}, write=True)
        assert await writers.replay_once() == 1 and writers.journal.held() == set()
        assert await verify_vault(ingestor) == []


async def test_an_entry_whose_file_was_never_written_goes_once_it_is_old(
    core: Core, vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer killed between its entry and its file, then writes the watcher applies: the
    entry unmarked goes (with the path's others) once it was seen ``UNLANDED_FOR_S`` before
    and the graph shows the disk — not before, however many looks."""
    here = _here(core, vault)
    ingestor = await _kept(here, vault, "Orf.md")
    await _watcher_lease(here, vault, ttl_s=60)
    async with _writers(here, tmp_path / "journal") as writers:
        orphan = writers.journal.add("Orf.md", "f" * 64)  # the killed write's hash
        for i in range(3):
            text = f"# Orf\n\n{i}\n"
            assert (await put_note(here, writers, "Orf.md", text)).status == "accepted"
            await ingestor.upsert_path("Orf.md")  # the watcher applies it
        assert await writers.replay_once() == 0 and len(writers.journal.held()) == 4
        for _ in range(3):  # the applied writes go at the second look
            assert await writers.replay_once() == 0
            assert writers.journal.held() == {orphan}, "seen for less than UNLANDED_FOR_S"
        monkeypatch.setattr(watched, "UNLANDED_FOR_S", 0.0)
        assert await writers.replay_once() == 0 and writers.journal.held() == set()
        assert await verify_vault(ingestor) == []


async def test_a_look_waits_only_for_the_notes_whose_entries_may_go(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """An entry first seen at this look cannot go: a write of its note under way (its lock
    held) does not hold back the look, which takes back another note's applied write."""
    here = _here(core, vault)
    ingestor = await _kept(here, vault, "Aba.md")
    await _watcher_lease(here, vault, ttl_s=30)
    async with _writers(here, tmp_path / "journal") as writers:
        assert (await put_note(here, writers, "Aba.md", B)).status == "accepted"
        await ingestor.upsert_path("Aba.md")  # the watcher applied it
        assert await writers.replay_once() == 0 and writers.journal.paths() == ["Aba.md"]
        late = writers.journal.add("Late.md", text_hash(A))  # a write under way, as below
        async with here.note_locks.hold("Late.md"):
            assert await asyncio.wait_for(writers.replay_once(), timeout=20) == 0
            assert writers.journal.held() == {late}


@pytest.mark.parametrize("intent", ["put", "delete"])
async def test_another_processs_write_slow_to_its_file_outlives_a_users_change(
    core: Core, vault: Path, tmp_path: Path, intent: str
) -> None:
    """Another process (an MCP server beside the API) journals a write and has not changed the
    file yet (its write waits on a query) while the user changes the note: the graph holding
    the write's text from before it (A; no note for a delete) proves nothing, even at a later
    look, until the disk holds it too. The watcher writes the user's change, the write's file
    lands, the watcher is killed: the replay applies the write."""
    here = _here(core, vault)
    ingestor = await _kept(here, vault, *(["Aba.md"] if intent == "put" else []))
    rel, users = ("Aba.md", B) if intent == "put" else ("New.md", B)
    await _watcher_lease(here, vault, ttl_s=30)
    async with _writers(here, tmp_path / "journal") as writers:
        other = Journal(writers.journal.file)  # that process's, on the same file
        entry = other.add(rel, text_hash(A) if intent == "put" else DELETED)
        await writers.replay_once()  # the first look
        put(vault, rel, users)  # the user's change, read by the watcher
        await writers.replay_once()  # the graph still holds A (or no New.md): not shown
        assert [e.path for e in writers.journal.held()] == [rel]
        await ingestor.upsert_text(rel, users)  # the watcher writes the user's change
        if intent == "put":
            put(vault, rel, A)  # the other process's file, at last
        else:
            (vault / rel).unlink()
        other.landed(entry)
        await ad_hoc(here, LAPSE, {"vault": here.settings.vault_name}, write=True)  # killed
        await writers.replay_once()
        assert await verify_vault(ingestor) == []
