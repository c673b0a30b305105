"""Links to notes that do not exist: their shared placeholder is named by the links the folder
holds now (the smallest spelling, capitals first), never by which link was written first; each
note still shows its own spelling; and a renamed note keeps its file's mtime."""

from __future__ import annotations

import os
from pathlib import Path

from knotwork.check.verify import snapshot, verify_vault
from knotwork.core import Core
from knotwork.graph.queries.admin import NOTE_MTIMES
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve.notes import note_detail, search_notes
from tests.integration.conftest import ad_hoc, put


async def placeholders(core: Core, vault: str) -> list[str]:
    return [n for n in (await snapshot(core.store, vault))["nodes"] if n.startswith("unresolved:")]


async def linked_as(core: Core, path: str) -> list[str]:
    facts = (await note_detail(core, path))["facts"]
    return [f["object"] for f in facts if f["object_kind"] == "unresolved"]


async def test_the_placeholder_name_does_not_depend_on_which_link_came_first(
    core: Core, vault: Path
) -> None:
    put(vault, "A.md", "A works with [[Ben]].\n")
    put(vault, "B.md", "B works with [[ben]].\n")
    one = Ingestor(core, root=vault, vault="one", extract_enabled=False)
    other = Ingestor(core, root=vault, vault="other", extract_enabled=False)
    for path in ("A.md", "B.md"):
        await one.upsert_path(path)
    for path in ("B.md", "A.md"):
        await other.upsert_path(path)
    assert await placeholders(core, "one") == ["unresolved:ben|Ben"]
    assert await placeholders(core, "other") == ["unresolved:ben|Ben"]
    # Only [[ben]] is left: the name follows the links the folder holds.
    (vault / "A.md").unlink()
    await one.delete("A.md")
    await other.delete("A.md")
    assert await placeholders(core, "one") == ["unresolved:ben|ben"]
    assert await placeholders(core, "other") == ["unresolved:ben|ben"]
    assert await verify_vault(one) == [] and await verify_vault(other) == []


async def test_each_note_shows_its_own_spelling_of_a_missing_note(core: Core, vault: Path) -> None:
    ingestor = Ingestor(core, root=vault, vault=core.settings.vault_name, extract_enabled=False)
    put(vault, "A.md", "A works with [[Ben]].\n")
    put(vault, "B.md", "B works with [[ben]].\n\nB reports to [[BEN|the boss]].\n")
    await sync_vault(ingestor)
    assert await placeholders(core, core.settings.vault_name) == ["unresolved:ben|BEN"]
    assert await linked_as(core, "A.md") == ["Ben"]
    assert await linked_as(core, "B.md") == ["ben", "BEN"]


async def test_links_left_without_their_note_name_the_placeholder_by_their_spellings(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    put(vault, "team/Bob.md", "# Bob\n")
    put(vault, "A.md", "A works with [[team/bob]].\n")
    put(vault, "B.md", "B works with [[Team/Bob]].\n")
    await sync_vault(ingestor)
    assert await placeholders(core, "t") == []
    (vault / "team/Bob.md").unlink()
    await ingestor.delete("team/Bob.md")
    assert await placeholders(core, "t") == ["unresolved:team/bob|Team/Bob"]
    assert await verify_vault(ingestor) == []
    # The same when the note moves away by a sync.
    put(vault, "team/Bob.md", "# Bob\n")
    await sync_vault(ingestor)
    assert await placeholders(core, "t") == []
    (vault / "team").rename(vault / "old")
    report = await sync_vault(ingestor)
    assert report.renamed == 1
    assert await placeholders(core, "t") == ["unresolved:team/bob|Team/Bob"]
    assert await verify_vault(ingestor) == []


async def test_a_graph_written_before_spellings_were_kept_is_renamed_by_the_next_sync(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    put(vault, "A.md", "A works with [[ben]].\n")
    put(vault, "B.md", "B works with [[Ben]].\n")
    await sync_vault(ingestor)
    # As an older version left it: no spelling on the links, the first writer's name, an
    # older facts version.
    await ad_hoc(
        core,
        "MATCH (n:Note {vault: 't'})-[r]->(u:Unresolved) REMOVE r.target_text "
        "SET u.name = 'ben', n.facts_version = 2",
        {},
        write=True,
    )
    assert await verify_vault(ingestor) != []
    report = await sync_vault(ingestor)
    assert report.written == 2
    assert await placeholders(core, "t") == ["unresolved:ben|Ben"]
    assert await verify_vault(ingestor) == []


async def mtimes(core: Core) -> list[tuple[str, float | None]]:
    rows = await core.store.read(NOTE_MTIMES, vault="t")
    return [(row["path"], row["mtime"]) for row in rows]


async def test_a_renamed_note_keeps_its_files_mtime(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    put(vault, "A.md", "# A\n\nSome text.\n")
    os.utime(vault / "A.md", (1_000_000_000, 1_000_000_000))
    await sync_vault(ingestor)
    assert await mtimes(core) == [("A.md", 1_000_000_000.0)]
    # Moved as the watcher reports it, then as a sync finds it: the move keeps the mtime.
    (vault / "A.md").rename(vault / "B.md")
    outcome = await ingestor.rename("A.md", "B.md")
    assert outcome.status == "renamed"
    assert await mtimes(core) == [("B.md", 1_000_000_000.0)]
    (vault / "B.md").rename(vault / "C.md")
    report = await sync_vault(ingestor)
    assert report.renamed == 1
    assert await mtimes(core) == [("C.md", 1_000_000_000.0)]


async def test_note_search_finds_names_and_tags_with_sharp_s_and_final_sigma(
    core: Core, vault: Path
) -> None:
    """The question is folded as Cypher's toLower folds the stored names: Python's casefold
    made "Straße" "strasse", which no stored name held."""
    ingestor = Ingestor(core, root=vault, vault=core.settings.vault_name, extract_enabled=False)
    put(vault, "Straße.md", "---\ntags: [Größe]\n---\n# Straße\n\nA street.\n")
    put(vault, "Λόγος.md", "# Λόγος\n\nA word.\n")
    await sync_vault(ingestor)
    assert [r["path"] for r in await search_notes(core, "straße")] == ["Straße.md"]
    assert [r["path"] for r in await search_notes(core, "ΛΌΓΟΣ")] == ["Λόγος.md"]
    assert [r["path"] for r in await search_notes(core, tag="größe")] == ["Straße.md"]
