"""A note moved and edited between two looks (``git mv`` plus an edit in one pull, a folder
moved while the watcher was down and a note in it edited) is that note moved, then edited
(ingest/move_pairs.py): renamed, its history and identity kept, only its changed chunks
embedded again; the graph then equals a fresh ingest — also when no chunk is kept unchanged
(a one-chunk note edited, a typo fixed in every section), by its words. Ambiguous or
rewritten, it stays a delete and a new note."""

from __future__ import annotations

from pathlib import Path

import pytest

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
STANDUP = "# Standup\n\nDate: 2024-01-05\n\nWe discussed the release and the migration plan.\n"
DATED = STANDUP.replace("2024-01-05", "2024-01-12")  # one chunk, its text changed


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


@pytest.mark.parametrize(
    ("name", "folder", "text", "edited", "changed"),
    [
        ("lake.md", "water", LAKE, EDITED, "warm and green"),  # one section of three edited
        ("standup.md", "meetings", STANDUP, DATED, "2024-01-12"),  # no chunk kept: its words
    ],
)
async def test_a_sync_takes_a_note_moved_and_edited_for_that_note_moved(
    core: Core,
    vault: Path,
    ingestor: Ingestor,
    fake_ollama: FakeOllama,
    name: str,
    folder: str,
    text: str,
    edited: str,
    changed: str,
) -> None:
    put(vault, name, text)
    put(vault, "other.md", "# Other\n\nSomething else.\n")
    await sync_vault(ingestor)
    (vault / folder).mkdir()
    (vault / name).rename(vault / folder / name)  # git mv + an edit, pulled at once
    put(vault, f"{folder}/{name}", edited)
    fake_ollama.calls.clear()
    report = await sync_vault(ingestor)
    assert (report.renamed, report.written, report.deleted) == (1, 0, 0)
    assert ("moved", f"{name} → {folder}/{name}") in report.landed
    assert sorted(await stored_notes(core, "t")) == sorted(["other.md", f"{folder}/{name}"])
    assert await _history(core, f"{folder}/{name}") == [  # the same note, its history kept
        (f"{folder}/{name}", "rename", name),
        (name, "renamed", None),  # the old path closed: where it went
        (name, "upsert", None),
    ]
    assert await stale_revisions(core, "t") == {}
    embedded = fake_ollama.embedded_texts()  # the edited chunk alone
    assert len(embedded) == 1 and changed in embedded[0]
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


@pytest.mark.parametrize(
    ("name", "folder", "text", "new"),
    [
        # Less than half of its chunks kept and few of its words: a note rewritten.
        ("lake.md", "water", LAKE, "# Lake\n\nA different lake entirely.\n"),
        # Every word of the gone note in it, but most of its own words new: words are
        # compared both ways, so it is no edit of that note.
        (
            "standup.md",
            "meetings",
            STANDUP,
            DATED + "\nAlso: the budget review, hiring, the office move and the offsite.\n",
        ),
    ],
)
async def test_a_note_of_the_same_name_unlike_the_gone_one_is_a_new_note(
    core: Core,
    vault: Path,
    ingestor: Ingestor,
    fake_ollama: FakeOllama,
    name: str,
    folder: str,
    text: str,
    new: str,
) -> None:
    put(vault, name, text)
    await sync_vault(ingestor)
    put(vault, f"{folder}/{name}", new)
    (vault / name).unlink()
    report = await sync_vault(ingestor)
    assert (report.renamed, report.written, report.deleted) == (0, 1, 1)
    assert await _history(core, f"{folder}/{name}") == [(f"{folder}/{name}", "upsert", None)]
    assert await verify_vault(ingestor) == []


@pytest.mark.parametrize(
    ("name", "folder", "text", "edited"),
    [("lake.md", "water", LAKE, EDITED), ("standup.md", "meetings", STANDUP, DATED)],
)
async def test_the_watcher_takes_a_note_moved_and_edited_for_that_note_moved(
    core: Core,
    vault: Path,
    ingestor: Ingestor,
    fake_ollama: FakeOllama,
    name: str,
    folder: str,
    text: str,
    edited: str,
) -> None:
    """Its events lost (or naming a source the graph no longer holds): found as a sync finds it."""
    put(vault, name, text)
    await sync_vault(ingestor)
    (vault / folder).mkdir()
    (vault / name).rename(vault / folder / name)
    put(vault, f"{folder}/{name}", edited)
    fake_ollama.calls.clear()
    ingestor.find_moves = True
    outcome = await ingestor.upsert_path(f"{folder}/{name}")
    assert (outcome.status, outcome.renamed_from) == ("renamed", name)
    assert sorted(await stored_notes(core, "t")) == [f"{folder}/{name}"]
    assert await _history(core, f"{folder}/{name}") == [
        (f"{folder}/{name}", "rename", name),
        (name, "renamed", None),  # the old path closed: where it went
        (name, "upsert", None),
    ]
    assert len(fake_ollama.embedded_texts()) == 1
    assert await verify_vault(ingestor) == []


async def test_a_sync_takes_a_note_with_every_section_edited_for_that_note_moved(
    core: Core, vault: Path, ingestor: Ingestor, fake_ollama: FakeOllama
) -> None:
    """A typo fixed in each paragraph: no chunk kept, most words kept."""
    typos = LAKE.replace("herons.", "herosn.").replace("shore", "shroe").replace("clear", "claer")
    put(vault, "lake.md", typos)
    await sync_vault(ingestor)
    put(vault, "water/lake.md", LAKE)
    (vault / "lake.md").unlink()
    fake_ollama.calls.clear()
    report = await sync_vault(ingestor)
    assert (report.renamed, report.written, report.deleted) == (1, 0, 0)
    assert (await _history(core, "water/lake.md"))[0] == ("water/lake.md", "rename", "lake.md")
    assert len(fake_ollama.embedded_texts()) == 3
    assert await verify_vault(ingestor) == []


async def test_the_watcher_takes_a_different_note_of_the_same_name_for_a_new_note(
    core: Core, vault: Path, ingestor: Ingestor, fake_ollama: FakeOllama
) -> None:
    put(vault, "standup.md", STANDUP)
    await sync_vault(ingestor)
    put(vault, "meetings/standup.md", "# Standup\n\nThe budget for the offsite is tight.\n")
    (vault / "standup.md").unlink()
    ingestor.find_moves = True
    outcome = await ingestor.upsert_path("meetings/standup.md")
    assert (outcome.status, outcome.renamed_from) == ("written", None)
    assert sorted(await stored_notes(core, "t")) == ["meetings/standup.md", "standup.md"]
