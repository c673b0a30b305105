"""The entries of writes handed to a watcher, for a note whose name has letters that compose
(``Café.md`` composed or decomposed). Linux holds the two spellings as two files, and the graph
as two notes: an entry goes on the note of its own path's spelling (the disk's, where the file
system lists the name otherwise, as macOS may), never on the other file's note; a delete is
shown once no note is left at any spelling the disk holds no file of its own by."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from knotwork.check.verify import verify_vault
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.journal import Journal
from knotwork.ingest.journal_entry import DELETED
from knotwork.serving.writes import put_note
from tests.integration.conftest import ad_hoc, put
from tests.integration.test_watched_writes import LAPSE, _here, _watcher_lease, _writers

COMPOSED, DECOMPOSED = (unicodedata.normalize(f, "Café.md") for f in ("NFC", "NFD"))
TEXTS = {COMPOSED: "# Café\n\nComposed.\n", DECOMPOSED: "# Café\n\nDecomposed.\n"}


async def _both(here: Core, vault: Path) -> Ingestor:
    """The two files, each a note in the graph; what the watcher writes."""
    ingestor = Ingestor(here, root=vault, extract_enabled=False)
    for name, text in TEXTS.items():
        put(vault, name, text)
        await ingestor.upsert_path(name)
    return ingestor


@pytest.mark.parametrize("written", [COMPOSED, DECOMPOSED], ids=["composed", "decomposed"])
async def test_a_write_goes_on_its_own_spellings_note_not_the_others(
    core: Core, vault: Path, tmp_path: Path, written: str
) -> None:
    """One spelling written with the other's text: the other file's note holding that hash
    shows nothing of this write; its entry stays until the watcher applied it (the replay
    applies it should the watcher be killed first)."""
    here = _here(core, vault)
    ingestor = await _both(here, vault)
    other = next(name for name in TEXTS if name != written)
    await _watcher_lease(here, vault, ttl_s=30)
    async with _writers(here, tmp_path / "journal") as writers:
        assert (await put_note(here, writers, written, TEXTS[other])).status == "accepted"
        for _ in range(2):
            assert await writers.replay_once() == 0
            assert writers.journal.paths() == [written], "the other file's note is not this"
        await ad_hoc(here, LAPSE, {"vault": here.settings.vault_name}, write=True)
        assert await writers.replay_once() == 1 and writers.journal.held() == set()
        assert await verify_vault(ingestor) == []


@pytest.mark.parametrize("deleted", [COMPOSED, DECOMPOSED], ids=["composed", "decomposed"])
async def test_a_delete_goes_on_its_own_spellings_note_not_the_others(
    core: Core, vault: Path, tmp_path: Path, deleted: str
) -> None:
    """One spelling deleted while the other's file stays, by a process slow to mark its
    entry written: its own note still in the graph keeps the entry, its note gone shows the
    delete — whatever the other file's note."""
    here = _here(core, vault)
    ingestor = await _both(here, vault)
    await _watcher_lease(here, vault, ttl_s=30)
    async with _writers(here, tmp_path / "journal") as writers:
        entry = Journal(writers.journal.file).add(deleted, DELETED)
        assert await writers.replay_once() == 0
        assert writers.journal.held() == {entry}, "the graph holds its note still"
        (vault / deleted).unlink()
        await ingestor.delete(deleted)  # the watcher applied it
        assert await writers.replay_once() == 0
        assert writers.journal.held() == set(), "its own note is gone: the delete is shown"
        assert await verify_vault(ingestor) == []


async def test_a_delete_stays_while_the_graph_holds_the_note_under_another_spelling(
    core: Core, vault: Path, tmp_path: Path
) -> None:
    """A delete named by the composed spelling, as a write on macOS may name a note the disk
    lists decomposed (both spellings one file there), its file gone: the graph showing no note
    at the composed spelling is not the delete while it holds the decomposed one, of which the
    disk holds no file either; the entry goes once the watcher applied the delete."""
    here = _here(core, vault)
    ingestor = Ingestor(here, root=vault, extract_enabled=False)
    put(vault, DECOMPOSED, "# Café\n")
    await ingestor.upsert_path(DECOMPOSED)
    await _watcher_lease(here, vault, ttl_s=30)
    async with _writers(here, tmp_path / "journal") as writers:
        other = Journal(writers.journal.file)
        entry = other.add(COMPOSED, DELETED)
        (vault / DECOMPOSED).unlink()
        other.landed(entry)
        for _ in range(3):
            assert await writers.replay_once() == 0
            assert writers.journal.paths() == [COMPOSED], "the graph still holds the note"
        await ingestor.delete(DECOMPOSED)
        assert await writers.replay_once() == 0 and writers.journal.held() == set()
