"""A note moved and edited between two looks (``git mv`` plus an edit in one pull, a folder
moved while the watcher was down and a note in it edited) is that note moved, then edited
(ingest/move_pairs.py): renamed, its history and identity kept, only its changed chunks
embedded again; the graph then equals a fresh ingest. Ambiguous or rewritten, it stays a
delete and a new note."""

from __future__ import annotations

from pathlib import Path

from knotwork.check.verify import verify_vault
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc, put, stale_revisions, stored_notes

LAKE = (
    "# Lake\n\nNotes on the lake and its herons.\n\n"
    "## Birds\n\nHerons nest on the north shore every spring.\n\n"
    "## Water\n\nThe water is cold and clear until July.\n"
)
EDITED = LAKE.replace("cold and clear until July", "warm and green by August")


async def _history(core: Core, path: str) -> list[tuple[str, str, str | None]]:
    """The revisions at ``path`` and, past a rename, at the path it came from (newest first,
    each with its path, kind and source): the note's history kept across its move."""
    rows = await ad_hoc(
        core,
        "MATCH (r:Revision {vault: 't', path: $path}) "
        "RETURN r.path AS path, r.kind AS kind, r.renamed_from AS source ORDER BY r.at DESC",
        {"path": path},
        write=False,
    )
    said = [(r["path"], r["kind"], r["source"]) for r in rows]
    moved = [s for _, kind, s in said if kind == "rename"]
    return said + (await _history(core, moved[0]) if moved else [])


async def test_a_sync_takes_a_note_moved_and_edited_for_that_note_moved(
    core: Core, vault: Path, ingestor: Ingestor, fake_ollama: FakeOllama
) -> None:
    put(vault, "lake.md", LAKE)
    put(vault, "other.md", "# Other\n\nSomething else.\n")
    await sync_vault(ingestor)
    (vault / "water").mkdir()
    (vault / "lake.md").rename(vault / "water/lake.md")  # git mv + an edit, pulled at once
    put(vault, "water/lake.md", EDITED)
    fake_ollama.calls.clear()
    report = await sync_vault(ingestor)
    assert (report.renamed, report.written, report.deleted) == (1, 0, 0)
    assert ("moved", "lake.md → water/lake.md") in report.landed
    assert sorted(await stored_notes(core, "t")) == ["other.md", "water/lake.md"]
    assert await _history(core, "water/lake.md") == [  # the same note, its history kept
        ("water/lake.md", "rename", "lake.md"),
        ("lake.md", "renamed", None),  # the old path closed: where it went
        ("lake.md", "upsert", None),
    ]
    assert await stale_revisions(core, "t") == {}
    embedded = fake_ollama.embedded_texts()  # the edited section alone
    assert len(embedded) == 1 and "warm and green" in embedded[0]
    assert await verify_vault(ingestor) == []


async def test_a_folder_moved_with_a_note_in_it_edited_keeps_every_note(
    core: Core, vault: Path, ingestor: Ingestor, fake_ollama: FakeOllama
) -> None:
    put(vault, "notes/lake.md", LAKE)
    put(vault, "notes/pond.md", "# Pond\n\nA small pond by the road.\n")
    await sync_vault(ingestor)
    (vault / "archive").mkdir()
    (vault / "notes").rename(vault / "archive/notes")  # the watcher down meanwhile
    put(vault, "archive/notes/lake.md", EDITED)
    fake_ollama.calls.clear()
    report = await sync_vault(ingestor)
    assert (report.renamed, report.written, report.deleted) == (2, 0, 0)
    for name in ("lake.md", "pond.md"):
        assert await _history(core, f"archive/notes/{name}") == [
            (f"archive/notes/{name}", "rename", f"notes/{name}"),
            (f"notes/{name}", "renamed", None),
            (f"notes/{name}", "upsert", None),
        ]
    assert len(fake_ollama.embedded_texts()) == 1
    assert await verify_vault(ingestor) == []


async def test_a_note_moved_and_rewritten_is_a_new_note(
    core: Core, vault: Path, ingestor: Ingestor, fake_ollama: FakeOllama
) -> None:
    """Less than half of its chunks kept: no telling it from a new note of the same name."""
    put(vault, "lake.md", LAKE)
    await sync_vault(ingestor)
    put(vault, "water/lake.md", "# Lake\n\nA different lake entirely.\n")
    (vault / "lake.md").unlink()
    report = await sync_vault(ingestor)
    assert (report.renamed, report.written, report.deleted) == (0, 1, 1)
    assert await _history(core, "water/lake.md") == [("water/lake.md", "upsert", None)]
    assert await verify_vault(ingestor) == []


async def test_the_watcher_takes_a_note_moved_and_edited_for_that_note_moved(
    core: Core, vault: Path, ingestor: Ingestor, fake_ollama: FakeOllama
) -> None:
    """Its events lost (or naming a source the graph no longer holds): found as a sync finds it."""
    put(vault, "lake.md", LAKE)
    await sync_vault(ingestor)
    (vault / "water").mkdir()
    (vault / "lake.md").rename(vault / "water/lake.md")
    put(vault, "water/lake.md", EDITED)
    fake_ollama.calls.clear()
    ingestor.find_moves = True
    outcome = await ingestor.upsert_path("water/lake.md")
    assert (outcome.status, outcome.renamed_from) == ("renamed", "lake.md")
    assert sorted(await stored_notes(core, "t")) == ["water/lake.md"]
    assert await _history(core, "water/lake.md") == [
        ("water/lake.md", "rename", "lake.md"),
        ("lake.md", "renamed", None),  # the old path closed: where it went
        ("lake.md", "upsert", None),
    ]
    assert len(fake_ollama.embedded_texts()) == 1
    assert await verify_vault(ingestor) == []
