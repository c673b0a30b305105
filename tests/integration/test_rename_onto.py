"""A note moved over another note's path: the replaced text's names go from other notes'
mentions, as a delete of it would take them."""

from __future__ import annotations

from pathlib import Path

from knotwork.check.verify import verify_vault
from knotwork.core import Core
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from tests.integration.conftest import ad_hoc, put


async def _mentioned(core: Core) -> list[str]:
    rows = await ad_hoc(
        core,
        "MATCH (:Note {vault: 't', path: 'X.md'})-[r:MENTIONS]->(o:Note) "
        "RETURN o.path + ' as ' + r.target AS mention",
        {},
        write=False,
    )
    return sorted(row["mention"] for row in rows)


async def test_moving_a_note_over_another_takes_the_replaced_names_mentions(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    put(vault, "Draft.md", "# Draft\n\nThe new text.\n")
    put(vault, "Final.md", "---\naliases: [Beeswax]\n---\n# Final\n\nThe old text.\n")
    put(vault, "X.md", "# X\n\nX reads Beeswax and the Draft.\n")
    await sync_vault(ingestor)
    assert await _mentioned(core) == ["Draft.md as draft", "Final.md as beeswax"]

    text = (vault / "Draft.md").read_text()
    (vault / "Draft.md").replace(vault / "Final.md")
    outcome = await ingestor.rename("Draft.md", "Final.md", text)
    # Written as `ingest` writes it: the note there takes the text (its history goes on),
    # and Draft.md is deleted (test_watcher_onto.py).
    assert outcome.status == "written"
    # The note is named by its file name only ("Final"): "Beeswax", the replaced text's
    # alias, and "Draft", the moved note's old name, name no note now.
    assert await _mentioned(core) == []
    assert await verify_vault(ingestor) == []


async def _texts(core: Core) -> dict[str, str]:
    """Path → the first chunk's text of each note of vault "t"."""
    rows = await ad_hoc(
        core,
        "MATCH (n:Note {vault: 't'})-[:HAS_CHUNK]->(c:Chunk) WHERE n.content_hash IS NOT NULL "
        "WITH n, c ORDER BY c.ord RETURN n.path AS path, collect(c.text)[0] AS text",
        {},
    )
    return {row["path"]: row["text"] for row in rows}


async def test_a_swap_in_one_batch_keeps_both_notes_with_each_others_text(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """``a → b`` and ``b → a`` in one batch (two notes swapped through a temp name, read as two
    moves): each a move onto a note the graph holds. Each note takes the other's text, its
    history going on; neither is deleted (each source holds the other move's text)."""
    put(vault, "a.md", "# A\n\nThe text first at a, about apples.\n")
    put(vault, "b.md", "# B\n\nThe text first at b, about bees.\n")
    await sync_vault(ingestor)
    (vault / "a.md").replace(vault / "tmp.md")
    (vault / "b.md").replace(vault / "a.md")
    (vault / "tmp.md").replace(vault / "b.md")
    outcomes = await ingestor.renames([("a.md", "b.md", None), ("b.md", "a.md", None)])
    assert sorted((o.path, o.status) for o in outcomes) == [
        ("a.md", "written"),
        ("b.md", "written"),
    ]
    texts = await _texts(core)
    assert sorted(texts) == ["a.md", "b.md"], texts
    assert "bees" in texts["a.md"] and "apples" in texts["b.md"], texts
    kinds = await ad_hoc(
        core, "MATCH (r:Revision {vault: 't'}) RETURN r.kind AS kind, r.path AS path", {}
    )
    assert not [r for r in kinds if r["kind"] == "delete"], kinds
    assert await verify_vault(ingestor) == []


async def test_a_move_from_a_note_another_move_lands_on_loses_no_note(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """``b → c`` and ``a → b`` in one batch (``mv b c; mv a b``): b.md is written with a's
    text, a.md deleted and c.md written with b's text, as a sync has it; renamed, b's note
    would move to c.md and the write of b.md be lost."""
    put(vault, "a.md", "# A\n\nThe text first at a, about apples.\n")
    put(vault, "b.md", "# B\n\nThe text first at b, about bees.\n")
    await sync_vault(ingestor)
    (vault / "b.md").replace(vault / "c.md")
    (vault / "a.md").replace(vault / "b.md")
    outcomes = await ingestor.renames([("a.md", "b.md", None), ("b.md", "c.md", None)])
    assert sorted((o.path, o.status) for o in outcomes) == [
        ("a.md", "deleted"),
        ("b.md", "written"),
        ("c.md", "written"),
    ]
    texts = await _texts(core)
    assert sorted(texts) == ["b.md", "c.md"], texts
    assert "apples" in texts["b.md"] and "bees" in texts["c.md"], texts
    assert await verify_vault(ingestor) == []


async def test_a_move_onto_the_same_file_under_another_spelling_is_no_delete(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """A case-only rename (``Foo.md`` → ``foo.md``) on a case-insensitive disk names one file
    by both spellings. Made here with a hard link (this disk is case-sensitive): the graph
    holds both paths, both name one file. Not a move onto another note: nothing deleted."""
    put(vault, "foo.md", "# Foo\n\nThe foo note.\n")
    (vault / "Foo.md").hardlink_to(vault / "foo.md")
    await sync_vault(ingestor)
    outcomes = await ingestor.renames([("Foo.md", "foo.md", None)])
    assert [o.status for o in outcomes] == ["renamed"], outcomes
    assert "foo.md" in await _texts(core)


async def test_a_move_onto_a_note_whose_source_is_still_there_deletes_no_note(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """A "move" whose source file still stands (copied over the target, or made again before
    the batch ran) writes the target and leaves the source's note: its file is there."""
    put(vault, "Draft.md", "# Draft\n\nThe new text.\n")
    put(vault, "Final.md", "# Final\n\nThe old text.\n")
    await sync_vault(ingestor)
    text = (vault / "Draft.md").read_text()
    (vault / "Final.md").write_text(text)  # copied: Draft.md stays
    assert (await ingestor.rename("Draft.md", "Final.md", text)).status == "written"
    assert sorted(await _texts(core)) == ["Draft.md", "Final.md"]
    assert await verify_vault(ingestor) == []
