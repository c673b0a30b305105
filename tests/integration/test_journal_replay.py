"""The journal's replay never takes for gone what it cannot see: a missing vault folder stops
it before any delete, and a note that cannot be read now stays pending while others go on. The
API's replay writes first and leaves the chat model's work to its background extraction."""

from __future__ import annotations

import asyncio
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from knotwork.core import Core, open_core
from knotwork.errors import NoteError, QueryTimeoutError, VaultUnavailableError
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.journal import Journal, journal_file, replay, settings_journal
from knotwork.ingest.journal_place import legacy_journal_file
from knotwork.serving.writers import VaultWriters
from knotwork.settings import Settings
from tests.integration.conftest import put, stored_notes
from tests.integration.test_api_extraction import (
    TEAM,
    _api,
    _as_fresh,
    _model_facts,
    _nothing_pending,
    _pending,
)
from tests.integration.test_watcher_extraction import HeldModel, _until, held  # noqa: F401


def _move(folder: Path, to: Path) -> Path:
    return folder.rename(to)


def _mount_point(folder: Path, present: bool) -> None:
    if present:
        folder.mkdir()
    else:
        folder.rmdir()


async def test_a_missing_vault_folder_deletes_nothing_and_keeps_the_writes(
    core: Core, vault: Path, ingestor: Ingestor, tmp_path: Path
) -> None:
    put(vault, "Alice.md", "# Alice\n\nAlice works with Bob.\n")
    put(vault, "Bob.md", "# Bob\n")
    await ingestor.upsert_path("Alice.md")
    await ingestor.upsert_path("Bob.md")
    journal = Journal(tmp_path / "t.journal")
    journal.add("Alice.md")
    unmounted = _move(vault, tmp_path / "elsewhere")  # a drive unplugged
    with pytest.raises(VaultUnavailableError, match="does not exist"):
        await replay(ingestor, journal)
    assert "Alice.md" in await stored_notes(core, "t")  # not deleted …
    assert journal.paths() == ["Alice.md"]  # … and still to replay
    _mount_point(vault, True)  # the mount point, empty, while the drive is away
    with pytest.raises(VaultUnavailableError, match="empty"):
        await replay(ingestor, journal)
    assert "Alice.md" in await stored_notes(core, "t") and journal.paths() == ["Alice.md"]
    _mount_point(vault, False)
    _move(unmounted, vault)
    assert await replay(ingestor, journal) == 1 and journal.paths() == []
    assert "Alice.md" in await stored_notes(core, "t")


async def test_a_note_that_cannot_be_read_now_stays_pending_and_the_others_go_on(
    core: Core,
    vault: Path,
    ingestor: Ingestor,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    put(vault, "A.md", "# A\n\nFirst in order.\n")
    put(vault, "B.md", "# B\n\nSecond in order.\n")
    journal = Journal(tmp_path / "t.journal")
    journal.add("A.md")
    journal.add("B.md")
    upsert = ingestor.upsert_path

    async def unreadable_a(path: str) -> object:
        if path == "A.md":
            raise NoteError("A.md: cannot be read (Permission denied)") from PermissionError(13)
        return await upsert(path)

    monkeypatch.setattr(ingestor, "upsert_path", unreadable_a)
    with pytest.raises(NoteError, match="Permission denied"):
        await replay(ingestor, journal)
    assert journal.paths() == ["A.md"]  # kept for a later try …
    assert set(await stored_notes(core, "t")) == {"B.md"}  # … and B, after it, applied
    monkeypatch.setattr(ingestor, "upsert_path", upsert)
    assert await replay(ingestor, journal) == 1
    assert set(await stored_notes(core, "t")) == {"A.md", "B.md"} and journal.paths() == []


async def test_the_last_note_deleted_leaves_an_empty_vault_that_the_replay_applies(
    core: Core, vault: Path, ingestor: Ingestor, tmp_path: Path
) -> None:
    """An empty folder is a vault whose last notes went when the journal holds every note the
    graph has: their deletes are applied, not refused as a drive not mounted."""
    put(vault, "Only.md", "# Only\n")
    await ingestor.upsert_path("Only.md")
    journal = Journal(tmp_path / "t.journal")
    journal.add("Only.md")
    _remove(vault / "Only.md")
    assert await replay(ingestor, journal) == 1
    assert await stored_notes(core, "t") == {} and journal.paths() == []


def _remove(file: Path) -> None:
    file.unlink()


async def test_a_write_neo4j_stopped_for_its_time_stays_pending(
    core: Core,
    vault: Path,
    ingestor: Ingestor,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A replayed write the server stops past its transaction time limit (QueryTimeoutError)
    is kept for the next replay, as a REST write journaled for the same reason expects."""
    put(vault, "A.md", "# A\n\nA note.\n")
    journal = Journal(tmp_path / "t.journal")
    journal.add("A.md")
    upsert = ingestor.upsert_path

    async def stopped(path: str) -> object:
        raise QueryTimeoutError("Neo4j stopped a query that ran past its time limit")

    monkeypatch.setattr(ingestor, "upsert_path", stopped)
    with pytest.raises(QueryTimeoutError):
        await replay(ingestor, journal)
    assert journal.paths() == ["A.md"]
    monkeypatch.setattr(ingestor, "upsert_path", upsert)
    assert await replay(ingestor, journal) == 1
    assert set(await stored_notes(core, "t")) == {"A.md"} and journal.paths() == []


async def test_the_apis_replay_writes_first_and_the_models_facts_follow(
    core: Core,
    settings: Settings,
    vault: Path,
    tmp_path: Path,
    held: HeldModel,  # noqa: F811
) -> None:
    """Back from an outage, the replay does not wait for a slow chat model (it would hold the
    writes behind it for minutes): the note lands with its chunks pending, and the background
    extraction does them after, as for a direct write."""
    state = tmp_path / "state"
    served = settings.model_copy(update={"vault_path": vault, "state_dir": state})
    put(vault, "Team.md", TEAM)  # a PUT while Neo4j was down: the file saved, the path journaled
    journal = Journal(journal_file(served))
    journal.add("Team.md")
    async with _api(settings, vault, state):  # the replay at start, as once Neo4j is back

        async def replayed() -> bool:
            return not journal.paths()

        await _until(replayed, 20)  # before the model answers (it holds each answer 60 s)
        assert "Team.md" in await stored_notes(core)
        assert await _pending(core) == ["Team.md", "Team.md"] and not held.go.is_set()
        await asyncio.to_thread(held.asked.wait, 30)  # the background pass asks the model
        held.go.set()
        await _until(lambda: _nothing_pending(core))
        assert {"source": "Team.md", "extractor": "llm"} in await _model_facts(core)
        assert await _as_fresh(core, vault) == []


async def test_a_write_journaled_under_one_spelling_of_the_uri_is_replayed_under_another(
    core: Core, settings: Settings, vault: Path, tmp_path: Path
) -> None:
    """The journal is named by the server, not by how its URI is spelled: a write one process
    (``neo4j://LOCALHOST:port/``) journaled is replayed by another (``bolt://localhost:port``),
    and so is an entry in the file an earlier version named by the URI as spelled."""
    port = urlsplit(settings.neo4j_uri).port
    base = settings.model_copy(
        update={"vault_path": vault, "state_dir": tmp_path / "state", "extract": False}
    )
    writer = base.model_copy(update={"neo4j_uri": f"neo4j://LOCALHOST:{port}/"})
    replayer = base.model_copy(update={"neo4j_uri": f"bolt://localhost:{port}"})
    put(vault, "Team.md", "# Team\n\nAnn and Ben.\n")  # written while Neo4j was down
    settings_journal(writer).add("Team.md")
    put(vault, "Old.md", "# Old\n")
    legacy = legacy_journal_file(replayer)  # as an earlier version of the replayer left it
    legacy.write_text("Old.md\tabc\n")
    async with open_core(replayer) as here:
        writers = VaultWriters(here, settings_journal(replayer))
        try:
            assert await writers.replay_once() == 2
        finally:
            await writers.extraction.stop()
    assert sorted(await stored_notes(core)) == ["Old.md", "Team.md"]
    assert not journal_file(writer).exists() and not legacy.exists()
