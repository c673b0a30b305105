"""A note new to the graph whose content a note gone from the folder holds is that note moved
(ingest/moved.py, on for the watcher's writes): renamed, its embeddings and history kept,
whatever move the caller named; and a sync that saw the folder change while it read it keeps
the notes it found gone, for the next sync to find where they went."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from knotwork.check.verify import verify_vault, verify_vault_report
from knotwork.core import Core
from knotwork.ingest import plan
from knotwork.ingest.changes import Delete, Upsert
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.vault import files
from knotwork.watch.said import PassReport
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc, put, stored_notes

TEXT = "# Lake\n\nNotes on the lake and its herons.\n"


async def _revisions(core: Core, path: str) -> list[tuple[str, str | None]]:
    rows = await ad_hoc(
        core,
        "MATCH (r:Revision {vault: 't', path: $path}) RETURN r.kind AS kind, "
        "r.renamed_from AS source ORDER BY r.at",
        {"path": path},
        write=False,
    )
    return [(r["kind"], r["source"]) for r in rows]


@pytest.fixture
async def moved_away(
    core: Core, vault: Path, ingestor: Ingestor, fake_ollama: FakeOllama
) -> Ingestor:
    """lake.md synced, then moved to water/lake.md on disk with no word to the graph."""
    put(vault, "lake.md", TEXT)
    put(vault, "other.md", "# Other\n\nSomething else.\n")
    await sync_vault(ingestor)
    (vault / "water").mkdir()
    (vault / "lake.md").rename(vault / "water/lake.md")
    fake_ollama.calls.clear()
    ingestor.find_moves = True
    return ingestor


@pytest.mark.parametrize("named", [None, "gone.md"], ids=["no-source", "a-source-not-held"])
async def test_a_new_note_with_a_gone_notes_content_is_that_note_moved(
    core: Core, moved_away: Ingestor, fake_ollama: FakeOllama, named: str | None
) -> None:
    if named is None:
        outcome = await moved_away.upsert_path("water/lake.md")
    else:
        outcome = await moved_away.rename(named, "water/lake.md")
    assert outcome.status == "renamed"
    assert sorted(await stored_notes(core, "t")) == ["other.md", "water/lake.md"]
    assert await _revisions(core, "water/lake.md") == [("rename", "lake.md")]
    assert fake_ollama.embedded_texts() == []
    assert await verify_vault(moved_away) == []


async def test_a_batch_deleting_the_moved_notes_path_moves_it(
    core: Core, moved_away: Ingestor, vault: Path, fake_ollama: FakeOllama
) -> None:
    outcomes = await moved_away.apply(
        [Delete("lake.md"), Upsert("water/lake.md", (vault / "water/lake.md").read_text())]
    )
    assert [(o.path, o.status) for o in outcomes] == [
        ("lake.md", "missing"),  # moved, not deleted too: the move took it from the graph
        ("water/lake.md", "renamed"),
    ]
    said = PassReport()  # the watcher's pass summary says the move once, with where it was
    for outcome in outcomes:
        said.landed(outcome, outcome.path)
    assert said.done == {"moved": ["lake.md → water/lake.md"]}
    assert sorted(await stored_notes(core, "t")) == ["other.md", "water/lake.md"]
    assert fake_ollama.embedded_texts() == []
    assert await verify_vault(moved_away) == []


async def test_a_copy_of_a_note_still_there_is_a_new_note(
    core: Core, moved_away: Ingestor, vault: Path, fake_ollama: FakeOllama
) -> None:
    (vault / "water/lake.md").rename(vault / "lake.md")  # back: the original is there
    put(vault, "copy.md", TEXT)
    outcome = await moved_away.upsert_path("copy.md")
    assert outcome.status == "written"
    assert sorted(await stored_notes(core, "t")) == ["copy.md", "lake.md", "other.md"]
    assert await _revisions(core, "lake.md") == [("upsert", None)]


async def test_off_by_default_a_new_note_is_new(
    core: Core, moved_away: Ingestor, fake_ollama: FakeOllama
) -> None:
    """A REST write or a CLI ingest names its moves: nothing is looked for."""
    moved_away.find_moves = False
    outcome = await moved_away.upsert_path("water/lake.md")
    assert outcome.status == "written"
    assert await _revisions(core, "water/lake.md") == [("upsert", None)]


async def test_a_sync_keeps_the_notes_gone_while_a_listed_file_vanished_before_its_read(
    core: Core, vault: Path, ingestor: Ingestor, fake_ollama: FakeOllama, monkeypatch: Any
) -> None:
    """The folder moved on while a sync read it (b/ listed, then moved to c/ before its files
    were read): lake.md, gone, may be one of them; deleted, it would be made new at c/,
    embedded all again. It is kept, said, and the next sync finds the move."""
    put(vault, "lake.md", TEXT)
    await sync_vault(ingestor)
    (vault / "b").mkdir()
    (vault / "lake.md").rename(vault / "b/lake.md")
    real = plan.read_group

    def moved_on_first(root: Path, paths: list[str], limit: int) -> Any:
        if (root / "b").exists():
            (root / "b").rename(root / "c")
        return real(root, paths, limit)

    monkeypatch.setattr(plan, "read_group", moved_on_first)
    report = await sync_vault(ingestor)
    assert report.kept_gone == 1 and report.deleted == 0
    assert any("vanished while the folder was read" in w for w in report.warnings)
    assert sorted(await stored_notes(core, "t")) == ["lake.md"]
    monkeypatch.undo()
    fake_ollama.calls.clear()
    again = await sync_vault(ingestor)
    assert (again.renamed, again.kept_gone) == (1, 0)
    assert sorted(await stored_notes(core, "t")) == ["c/lake.md"]
    assert await _revisions(core, "c/lake.md") == [("rename", "lake.md")]
    assert fake_ollama.embedded_texts() == []


async def test_a_sync_keeps_the_notes_gone_while_a_listed_folder_vanished_before_its_walk(
    core: Core, vault: Path, ingestor: Ingestor, fake_ollama: FakeOllama, monkeypatch: Any
) -> None:
    """The folder moved on between the listing of its parent and its own (a/ moved to b/,
    listed, then moved to c/ before it was walked): the notes at a/, gone, may be below it.
    Deleted, they would be made new at c/, embedded all again; kept, the next sync finds
    the move. Nor is b/ said to be unreadable: it is gone, not shut."""
    for i in range(3):
        put(vault, f"a/n{i}.md", f"# N{i}\n\nNote {i} on the lake.\n")
    await sync_vault(ingestor)
    (vault / "a").rename(vault / "b")
    real = files.walk  # the scan's walk of the folder (vault/walk.py)

    def moved_on_after_the_top(top: Any, *args: Any, **kwargs: Any) -> Any:
        for i, entry in enumerate(real(top, *args, **kwargs)):
            yield entry
            if i == 0:  # the top listed (b/ in it), b/ not yet walked
                (vault / "b").rename(vault / "c")

    monkeypatch.setattr(files, "walk", moved_on_after_the_top)
    report = await sync_vault(ingestor)
    monkeypatch.undo()
    assert report.kept_gone == 3 and report.deleted == 0
    assert any("vanished while the folder was read" in w for w in report.warnings)
    assert not any("cannot be listed" in e for e in report.errors), report.errors
    assert sorted(await stored_notes(core, "t")) == ["a/n0.md", "a/n1.md", "a/n2.md"]
    fake_ollama.calls.clear()
    again = await sync_vault(ingestor)
    assert (again.renamed, again.kept_gone) == (3, 0)
    assert sorted(await stored_notes(core, "t")) == ["c/n0.md", "c/n1.md", "c/n2.md"]
    assert fake_ollama.embedded_texts() == []


async def _lake_deleted_as_read(vault: Path, ingestor: Ingestor, monkeypatch: Any) -> None:
    """Two notes synced; the next read of the folder finds lake.md gone after listing it."""
    put(vault, "lake.md", TEXT)
    put(vault, "other.md", "# Other\n\nSomething else.\n")
    await sync_vault(ingestor)
    real = plan.read_group

    def deleted_first(root: Path, paths: list[str], limit: int) -> Any:
        (root / "lake.md").unlink(missing_ok=True)
        return real(root, paths, limit)

    monkeypatch.setattr(plan, "read_group", deleted_first)


async def test_a_note_deleted_between_the_listing_and_its_read_is_no_note_kept(
    core: Core, vault: Path, ingestor: Ingestor, fake_ollama: FakeOllama, monkeypatch: Any
) -> None:
    """A note deleted while a sync (an overflow's rescan) read the folder: gone, not a note of
    the folder (the report's ``notes``) nor one kept at its last version for the folder holds
    it but cannot read it (``kept``: verify would call it unreadable, not gone)."""
    await _lake_deleted_as_read(vault, ingestor, monkeypatch)
    report = await sync_vault(ingestor)
    monkeypatch.undo()
    assert (report.notes, report.kept) == (1, set()), report.errors
    again = await sync_vault(ingestor)
    assert (again.deleted, again.notes, again.kept) == (1, 1, set())
    assert sorted(await stored_notes(core, "t")) == ["other.md"]


async def test_verify_tells_a_note_gone_while_it_read_the_folder_as_gone(
    vault: Path, ingestor: Ingestor, fake_ollama: FakeOllama, monkeypatch: Any
) -> None:
    """Not as a note changed to "gone from the folder" beside an unreadable one: the scratch
    sync copied it in as a note kept at its last version, which only an unreadable file is."""
    await _lake_deleted_as_read(vault, ingestor, monkeypatch)
    found = await verify_vault_report(ingestor)
    notes = [(d.path, d.status) for d in found.notes]
    assert notes == [("lake.md", "in the graph but not in the folder")], found
