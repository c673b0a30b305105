"""A sync cut off before its last batch: the links and mentions of the notes it did not write
are moved by the next sync, which finds them owed in the graph (sync_owe.cypher)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from knotwork.check.verify import verify_vault
from knotwork.core import Core
from knotwork.errors import GraphQueryError, GraphUnavailableError
from knotwork.graph import names as names_cache
from knotwork.graph.names import NameIndex
from knotwork.graph.queries.writes import SYNC_OWED
from knotwork.ingest import settle, write
from knotwork.ingest.batch import Batch
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve import cached
from tests.integration.conftest import ad_hoc, put


async def _targets(core: Core, relation: str, path: str = "X.md") -> list[str]:
    rows = await ad_hoc(
        core,
        "MATCH (:Note {vault: 't', path: $path})-[r]->(o) WHERE type(r) = $relation "
        "AND r.source = $path RETURN coalesce(o.path, 'unresolved ' + o.key) AS target",
        {"relation": relation, "path": path},
        write=False,
    )
    return sorted(row["target"] for row in rows)


def _one_by_one(core: Core, vault: Path) -> Ingestor:
    """An ingestor of vault "t" whose sync writes a note per batch."""
    one = dataclasses.replace(core, settings=core.settings.model_copy(update={"ingest_batch": 1}))
    return Ingestor(one, root=vault, vault="t", extract_enabled=False)


async def test_the_next_sync_moves_what_a_cut_off_sync_owed(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingestor = _one_by_one(core, vault)
    put(vault, "X.md", "# X\n\nX works with [[Y]] and asks Zed.\n")
    put(vault, "W.md", "# W\n\nAnother note.\n")
    await sync_vault(ingestor)
    assert await _targets(core, "WORKS_WITH") == ["unresolved y"]

    put(vault, "Y.md", "# Y\n\nA new note.\n")
    put(vault, "Zed.md", "# Zed\n\nAnother new note.\n")
    real = write.write_batch

    async def cut_off(store, batch: Batch):  # type: ignore[no-untyped-def]
        if batch.link_keys:  # the last batch: Neo4j goes away before it
            raise GraphUnavailableError("Neo4j went away")
        return await real(store, batch)

    monkeypatch.setattr(write, "write_batch", cut_off)
    with pytest.raises(GraphUnavailableError):
        await sync_vault(ingestor)
    [owed] = await core.store.read(SYNC_OWED, vault="t")
    assert "y" in owed["links"] and "zed" in owed["reverse"]
    assert await _targets(core, "WORKS_WITH") == ["unresolved y"]  # the cut-off pass
    assert await _targets(core, "MENTIONS") == []

    monkeypatch.setattr(write, "write_batch", real)
    report = await sync_vault(ingestor)
    assert report.written == 0 and not report.errors  # every note was written before
    assert await _targets(core, "WORKS_WITH") == ["Y.md"]
    assert await _targets(core, "MENTIONS") == ["Zed.md"]
    assert await core.store.read(SYNC_OWED, vault="t") == [{"reverse": [], "links": []}]
    assert await verify_vault(ingestor) == []


async def test_a_deletes_only_sync_written_note_by_note_records_what_it_owes_first(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A sync that only deletes is one batch, its last: nothing recorded its debt before.
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    put(vault, "X.md", "# X\n\nX asks Zed.\n")
    put(vault, "Zed.md", "# Zed\n\nA note.\n")
    put(vault, "Other.md", "---\naliases: [Zed]\n---\n# Other\n\nAnother note.\n")
    await sync_vault(ingestor)
    assert await _targets(core, "MENTIONS") == ["Zed.md"]
    (vault / "Zed.md").unlink()  # "Zed" now names Other.md
    real = write.write_batch
    calls: list[Batch] = []

    async def refused_then_cut_off(store, batch: Batch):  # type: ignore[no-untyped-def]
        calls.append(batch)
        if len(calls) == 1:  # the whole batch: Neo4j refuses it, so the notes go one by one
            assert batch.deletes and batch.reverse_keys
            raise GraphQueryError("refused")
        if batch.reverse_keys and not batch.deletes:  # the pass over other notes, after them
            raise GraphUnavailableError("Neo4j went away")
        return await real(store, batch)

    monkeypatch.setattr(write, "write_batch", refused_then_cut_off)
    with pytest.raises(GraphUnavailableError):
        await sync_vault(ingestor)
    [owed] = await core.store.read(SYNC_OWED, vault="t")
    assert "zed" in owed["reverse"]
    assert await _targets(core, "MENTIONS") == []  # the pass did not run

    monkeypatch.setattr(write, "write_batch", real)
    report = await sync_vault(ingestor)
    assert report.deleted == 0 and not report.errors
    assert await _targets(core, "MENTIONS") == ["Other.md"]
    assert await verify_vault(ingestor) == []


async def test_a_note_deleted_by_a_cut_off_sync_and_restored_gets_its_links_and_mentions_back(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # x is rewritten against names without d; the cut comes before d's delete; d is restored.
    ingestor = _one_by_one(core, vault)
    put(vault, "X.md", "# X\n\nX works with [[D]] and asks Dee.\n")
    put(vault, "D.md", "---\naliases: [Dee]\n---\n# D\n\nA note.\n")
    await sync_vault(ingestor)
    assert await _targets(core, "WORKS_WITH") == ["D.md"]
    put(vault, "X.md", "# X\n\nX works with [[D]] and asks Dee, again.\n")
    saved = (vault / "D.md").read_text()
    (vault / "D.md").unlink()
    real = write.write_batch

    async def cut_off(store, batch: Batch):  # type: ignore[no-untyped-def]
        if batch.deletes:  # the last batch: Neo4j goes away before it
            raise GraphUnavailableError("Neo4j went away")
        return await real(store, batch)

    monkeypatch.setattr(write, "write_batch", cut_off)
    with pytest.raises(GraphUnavailableError):
        await sync_vault(ingestor)
    assert await _targets(core, "WORKS_WITH") == ["unresolved d"]
    [owed] = await core.store.read(SYNC_OWED, vault="t")
    assert "d" in owed["links"] and "dee" in owed["reverse"]

    monkeypatch.setattr(write, "write_batch", real)
    put(vault, "D.md", saved)  # restored (an undo, a checkout) before the next sync
    report = await sync_vault(ingestor)
    assert report.written == 0 and not report.errors
    assert await _targets(core, "WORKS_WITH") == ["D.md"]
    assert await _targets(core, "MENTIONS") == ["D.md"]
    assert await verify_vault(ingestor) == []


@pytest.mark.parametrize("refused", [False, True], ids=["batch", "note-by-note"])
async def test_names_cached_before_a_cut_off_sync_are_not_trusted_after_it(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch, refused: bool
) -> None:
    """``refused``: Neo4j refuses the first batch, whose notes are then written one by one."""
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    put(vault, "A.md", "# A\n\nA note.\n")
    put(vault, "B.md", "# B\n\nB links to [[A]].\n")
    await sync_vault(ingestor)
    other: names_cache.Cache = {}  # another process's cache of the vault's names
    token, before = await names_cache.cached(core.store, other, "t")
    assert "A.md" in before.paths() and token is not None
    (vault / "A.md").rename(vault / "Renamed.md")
    put(vault, "C.md", "# C\n\nA new note.\n")
    real = write.write_batch

    calls: list[Batch] = []

    async def cut_off(store, batch: Batch):  # type: ignore[no-untyped-def]
        calls.append(batch)
        if refused and len(calls) == 1:
            raise GraphQueryError("refused")
        if batch.reverse_keys:  # the last batch
            raise GraphUnavailableError("Neo4j went away")
        return await real(store, batch)

    monkeypatch.setattr(write, "write_batch", cut_off)
    with pytest.raises(GraphUnavailableError):
        await sync_vault(ingestor)
    assert "t" not in core.names  # this process re-reads them
    after_token, after = await names_cache.cached(core.store, other, "t")
    assert after_token != token and "Renamed.md" in after.paths()


async def test_placeholders_dropped_by_a_sync_renew_the_vaults_generation(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """Retrieval keeps walks per generation: the end of a sync, deleting a note placeholder
    its cut-off predecessor left (and moving the links to it), must renew the generation, or a
    walk kept through the placeholder is served on. A sync with nothing to do keeps it."""
    put(vault, "A.md", "# A\n\nSee [[Ghost]].\n")
    await sync_vault(ingestor)
    before = await cached.generation(core.store, "t")
    await sync_vault(ingestor)
    assert await cached.generation(core.store, "t") == before  # nothing done, nothing renewed
    linked = await ad_hoc(  # what a sync cut off before Ghost.md's batch leaves: a placeholder
        core,
        "MATCH (a:Note {vault: 't', path: 'A.md'})-[r]->(u:Unresolved) "
        "CREATE (g:Note {vault: 't', path: 'Ghost.md', lpath: 'ghost', name: 'Ghost'}) "
        "CREATE (a)-[moved:$(type(r))]->(g) SET moved = properties(r) DELETE r "
        "RETURN type(r) AS relation",
        {},
        write=True,
    )
    assert linked == [{"relation": "SEE_ALSO"}]  # "See [[Ghost]]"
    names = NameIndex()
    names.put("A.md", "a", ["a"])  # the names the sync worked out: Ghost.md is not among them
    await settle.drop_placeholders(core.store, "t", names)  # what a sync's end does
    after = await cached.generation(core.store, "t")
    assert (
        await ad_hoc(
            core, "MATCH (n:Note {vault: 't', path: 'Ghost.md'}) RETURN n", {}, write=False
        )
        == []
    )
    assert await _targets(core, "SEE_ALSO", "A.md") == ["unresolved ghost"]
    assert before is not None and after != before
    assert await verify_vault(ingestor) == []


async def test_a_note_refused_in_a_last_batch_written_one_by_one_is_not_counted_written(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The last batch (the deletes) closes with a pass whose outcomes are the batch's again;
    # the progress bar counted the note whose delete was refused among those done.
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    for name in ("Old", "Bad", "Kept"):
        put(vault, f"{name}.md", f"# {name}\n\nA note.\n")
    await sync_vault(ingestor)
    (vault / "Old.md").unlink()
    (vault / "Bad.md").unlink()
    put(vault, "Ann.md", "# Ann\n\nA new note.\n")
    real = write.write_batch

    async def refused(store, batch: Batch):  # type: ignore[no-untyped-def]
        if any(d.path == "Bad.md" for d in batch.deletes):
            raise GraphQueryError("refused")
        return await real(store, batch)

    monkeypatch.setattr(write, "write_batch", refused)
    calls: list[tuple[int, int, str]] = []
    report = await sync_vault(ingestor, lambda *call: calls.append(call))
    assert report.deleted == 1 and [e.split(":")[0] for e in report.errors] == ["Bad.md"]
    shown = [call for call in calls if call[2].startswith("writing notes")]
    assert shown == [
        (0, 3, "writing notes: Ann.md"),  # its batch's write under way
        (1, 3, "writing notes: Ann.md"),
        (1, 3, "writing notes: Bad.md"),  # the deletes' batch under way (in path order)
        (2, 3, "writing notes: Old.md (deleted)"),
    ], calls


async def test_a_note_moved_onto_a_placeholder_a_cut_off_sync_left_is_still_moved(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note written before the cut links to where a moved note is going: the placeholder
    there is no note the next sync holds, so the move is a move (its history kept), not a
    delete and a new note embedded again."""
    ingestor = _one_by_one(core, vault)
    person = "people/Person 040.md"
    put(vault, "old/Person 040.md", "# Person 040\n\nA person of the vault.\n")
    put(vault, "W.md", "# W\n\nAnother note.\n")
    await sync_vault(ingestor)
    (vault / "people").mkdir()
    (vault / "old/Person 040.md").rename(vault / person)
    put(vault, "A.md", "# A\n\nA works with [[people/Person 040]].\n")
    real = write.write_batch

    async def cut_off(store, batch: Batch):  # type: ignore[no-untyped-def]
        if any(w.path == person for w in batch.writes):  # Neo4j goes away before the move
            raise GraphUnavailableError("Neo4j went away")
        return await real(store, batch)

    monkeypatch.setattr(write, "write_batch", cut_off)
    with pytest.raises(GraphUnavailableError):
        await sync_vault(ingestor)
    placeholder = await ad_hoc(
        core,
        "MATCH (n:Note {vault: 't', path: $path}) RETURN n.content_hash AS content_hash",
        {"path": person},
        write=False,
    )
    assert placeholder == [{"content_hash": None}]  # A.md's link made it
    assert await _targets(core, "WORKS_WITH", "A.md") == [person]

    monkeypatch.setattr(write, "write_batch", real)
    report = await sync_vault(ingestor)
    assert (report.renamed, report.deleted, report.written) == (1, 0, 0), report
    history = await ad_hoc(
        core,
        "MATCH (r:Revision {vault: 't', path: $path}) RETURN r.kind AS kind, "
        "r.renamed_from AS source ORDER BY r.at",
        {"path": person},
        write=False,
    )
    assert history == [{"kind": "rename", "source": "old/Person 040.md"}]  # "renamed from"
    assert await _targets(core, "WORKS_WITH", "A.md") == [person]
    assert await verify_vault(ingestor) == []
