"""The watcher under a folder of notes renamed: its moves are written in batches, a few
transactions for hundreds of notes, each still a move (nothing embedded again, the history
followed, other notes' links following the notes), and a batch Neo4j refuses goes one by one."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path
from typing import Any

import pytest

from knotwork.core import Core
from knotwork.errors import GraphQueryError, GraphUnavailableError
from knotwork.ingest import write
from knotwork.watch.held import Pending
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc, put
from tests.integration.test_watcher import assert_verified, graph_paths, settle, watched

log = logging.getLogger(__name__)
NOTES = 200
DEBOUNCE_MS = 1000  # long enough that one pass takes the whole folder on a busy machine


def _renames(
    monkeypatch: pytest.MonkeyPatch, refuse: str | None = None, away_once: bool = False
) -> list[int]:
    """The number of notes each write transaction renames; with ``refuse``, Neo4j refuses
    every transaction renaming that note (as it would a constraint it breaks); with
    ``away_once``, Neo4j is away for the first one."""
    sizes: list[int] = []
    real = write.write_batch

    async def counting(store: Any, batch: Any) -> Any:
        renamed = [w.path for w in batch.writes if w.renamed_from]
        if renamed:
            sizes.append(len(renamed))
        if refuse in renamed:
            raise GraphQueryError(f"refused: {refuse}")
        if away_once and sizes == [len(renamed)]:
            raise GraphUnavailableError("Neo4j is not reachable (test)")
        return await real(store, batch)

    monkeypatch.setattr(write, "write_batch", counting)
    return sizes


def _folder(vault: Path, folder: str, count: int) -> None:
    for i in range(count):
        put(vault, f"{folder}/n{i:03d}.md", f"# N{i}\n\nLinks to [[n{(i + 1) % count:03d}]].\n")


async def _revisions(core: Core, since: int) -> list[tuple[str, str, str | None]]:
    rows = await ad_hoc(
        core,
        "MATCH (r:Revision {vault: 'w'}) RETURN r.path AS path, r.kind AS kind, "
        "r.renamed_from AS source ORDER BY r.at",
        {},
    )
    return [(r["path"], r["kind"], r["source"]) for r in rows][since:]


async def _link_target(core: Core, source: str) -> list[str]:
    rows = await ad_hoc(
        core,
        "MATCH (:Note {vault: 'w', path: $source})-[:LINKS_TO]->(n:Note {vault: 'w'}) "
        "RETURN n.path AS path",
        {"source": source},
    )
    return sorted(r["path"] for r in rows)


async def test_a_folder_renamed_is_moved_in_a_few_transactions(
    core: Core, vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    _folder(vault, "Big", NOTES)
    put(vault, "Index.md", "# Index\n\nStart at [[n007]].\n")
    async with watched(core, vault, watch_debounce_ms=DEBOUNCE_MS, watch_rescan_s=0) as running:
        assert await _link_target(core, "Index.md") == ["Big/n007.md"]
        before = len(await _revisions(core, 0))
        sizes = _renames(monkeypatch)
        fake_ollama.calls.clear()
        began = time.monotonic()
        os.rename(vault / "Big", vault / "Big2")
        deadline = began + 120
        while sum(p.startswith("Big2/") for p in await graph_paths(core)) < NOTES:
            assert time.monotonic() < deadline, "the folder's notes never all moved"
            await asyncio.sleep(0.1)
        log.info("%d notes moved in %.1f s", NOTES, time.monotonic() - began)
        await settle(running, quiet=1.0, limit_s=120)
        await assert_verified(running)
        assert not [p for p in await graph_paths(core) if p.startswith("Big/")]
        assert 0 < len(sizes) <= 5, sizes  # one by one it was one per note
        assert fake_ollama.embedded_texts() == []
        revisions = await _revisions(core, before)
        assert {(p, s) for p, kind, s in revisions if kind == "rename"} == {
            (f"Big2/n{i:03d}.md", f"Big/n{i:03d}.md") for i in range(NOTES)
        }
        assert {kind for _, kind, _ in revisions} <= {"rename", "renamed"}  # none made anew
        assert await _link_target(core, "Index.md") == ["Big2/n007.md"]
        assert await _link_target(core, "Big2/n007.md") == ["Big2/n008.md"]


async def test_moves_of_one_batch_edited_or_onto_a_note_stay_moves(
    core: Core, vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In one pass, with a folder's notes: one also edited after its move (its new text
    embedded, nothing else), and a note moved onto another note the graph holds (written as
    `ingest` writes it: that note takes the text, its history going on, the old path deleted).
    The folder's moves are written in one transaction."""
    _folder(vault, "a", 20)
    put(vault, "x.md", "# X\n\nThe x note, moved onto y.\n")
    put(vault, "y.md", "# Y\n\nThe y note, replaced.\n")
    async with watched(core, vault, watch_debounce_ms=DEBOUNCE_MS, watch_rescan_s=0) as running:
        before = len(await _revisions(core, 0))
        sizes = _renames(monkeypatch)
        fake_ollama.calls.clear()
        os.rename(vault / "a", vault / "b")
        os.rename(vault / "x.md", vault / "y.md")
        put(vault, "b/n003.md", "# N3\n\nLinks to [[n004]]. An edit made after the move.\n")
        await settle(running, quiet=1.5, limit_s=120)
        await assert_verified(running)
        assert sizes and max(sizes) == 20, sizes
        # Only the edit, and the chunk retitled by its move (a chunk embeds its note's title).
        embedded = fake_ollama.embedded_texts()
        assert {t.split("\n")[0] for t in embedded} == {"n003 > N3", "y > X"}, embedded
        revisions = await _revisions(core, before)
        assert {(p, s) for p, kind, s in revisions if kind == "rename"} == {
            (f"b/n{i:03d}.md", f"a/n{i:03d}.md") for i in range(20)
        }
        assert ("y.md", "upsert", None) in revisions and ("x.md", "delete", None) in revisions
        assert {kind for _, kind, _ in revisions} <= {
            "rename",
            "renamed",
            "mentions",
            "upsert",
            "delete",
        }
        assert await _link_target(core, "b/n002.md") == ["b/n003.md"]


async def test_a_batch_of_moves_neo4j_refuses_is_written_one_by_one(
    core: Core,
    vault: Path,
    fake_ollama: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="knotwork.watch")
    monkeypatch.setattr("knotwork.watch.apply.RETRY_GRAPH_S", 0.2)
    _folder(vault, "a", 20)
    async with watched(core, vault, watch_debounce_ms=DEBOUNCE_MS, watch_rescan_s=0) as running:
        running._rescan_when_quiet = lambda: None  # type: ignore[method-assign]
        sizes = _renames(monkeypatch, refuse="b/n007.md")
        fake_ollama.calls.clear()
        os.rename(vault / "a", vault / "b")
        await settle(running, quiet=1.5, limit_s=120)
        said = [r.getMessage() for r in caplog.records if "(try " in r.getMessage()]
        assert said and all(m.startswith("b/n007.md: refused") for m in said), said
        assert sizes[0] == 20 and sizes.count(1) >= 19, sizes  # the batch, then one by one
        # The others moved, not made anew; the one refused, given up, is left to a rescan.
        assert not [p for p in await graph_paths(core) if p.startswith("a/")]
        assert {t.split("\n")[0] for t in fake_ollama.embedded_texts()} <= {"n007 > N7"}
        moved = {p for p, kind, _ in await _revisions(core, 0) if kind == "rename"}
        assert moved >= {f"b/n{i:03d}.md" for i in range(20) if i != 7}


async def test_a_batch_of_moves_met_by_neo4j_away_waits_and_is_moved(
    core: Core, vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neo4j away for the batch: every move waits, its old path with it (not deleted on its
    own), and the batch is written once Neo4j is back."""
    monkeypatch.setattr("knotwork.watch.apply.RETRY_GRAPH_S", 0.2)
    _folder(vault, "a", 20)
    async with watched(core, vault, watch_debounce_ms=DEBOUNCE_MS, watch_rescan_s=0) as running:
        running._rescan_when_quiet = lambda: None  # type: ignore[method-assign]
        sizes = _renames(monkeypatch, away_once=True)
        fake_ollama.calls.clear()
        os.rename(vault / "a", vault / "b")
        await settle(running, quiet=1.5, limit_s=120)
        await assert_verified(running)
        assert sizes == [20, 20], sizes
        assert fake_ollama.embedded_texts() == []
        moved = {p for p, kind, _ in await _revisions(core, 0) if kind == "rename"}
        assert moved == {f"b/n{i:03d}.md" for i in range(20)}


async def test_a_moved_note_edited_after_its_folder_stays_a_move_through_the_rescan(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """A folder renamed, then one of its notes edited a moment later: the folder's rescan
    comes before that note's debounce is over. Its move is written before the rescan (which
    finds moves by content only, and would take the edited note for a new one: its old path
    deleted, its text all embedded again, its history cut)."""
    _folder(vault, "a", 20)
    async with watched(core, vault, watch_debounce_ms=DEBOUNCE_MS, watch_rescan_s=0) as running:
        before = len(await _revisions(core, 0))
        fake_ollama.calls.clear()
        os.rename(vault / "a", vault / "b")
        await asyncio.sleep(0.4)  # its debounce now ends after the folder's rescan is due
        put(vault, "b/n003.md", "# N3\n\nLinks to [[n004]]. An edit made after the move.\n")
        await settle(running, quiet=1.5, limit_s=120)
        await assert_verified(running)
        assert running.status.rescans >= 2  # the start-up sync, then the folder's
        revisions = await _revisions(core, before)
        assert {(p, s) for p, kind, s in revisions if kind == "rename"} == {
            (f"b/n{i:03d}.md", f"a/n{i:03d}.md") for i in range(20)
        }, revisions
        assert {kind for _, kind, _ in revisions} <= {"rename", "renamed", "mentions"}
        assert {t.split("\n")[0] for t in fake_ollama.embedded_texts()} <= {"n003 > N3"}


async def test_a_move_edited_as_the_folders_rescan_begins_stays_a_move(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """The edit's event read while the pass before the folder's rescan renews the lease (its
    turn pushed back just then): the move is still written before the rescan takes it."""
    _folder(vault, "a", 20)
    async with watched(core, vault, watch_debounce_ms=DEBOUNCE_MS, watch_rescan_s=0) as running:
        before = len(await _revisions(core, 0))
        rescan, renew, edited = running._rescan_now, running._lease_confirmed, []

        async def rescanning() -> None:
            edited.append("rescan")
            await rescan()

        async def renewed() -> None:
            await renew()
            if edited == ["rescan"]:  # the folder's rescan's pass: the note edited now
                edited.append("b/n003.md")
                put(vault, "b/n003.md", "# N3\n\nLinks to [[n004]]. Edited as it rescans.\n")
                await asyncio.sleep(0.3)  # its event read

        is_due = running.is_due

        def moves_wait_for_the_rescan(item: Pending, now: float) -> bool:
            # On a loaded machine the moves' debounce could end before the rescan's timer
            # fires: a pass before the rescan wrote them, and the case was never met.
            return (item.moved_from is None or running._moves_now) and is_due(item, now)

        running._rescan_now = rescanning  # type: ignore[method-assign]
        running._lease_confirmed = renewed  # type: ignore[method-assign]
        running.is_due = moves_wait_for_the_rescan  # type: ignore[method-assign]
        fake_ollama.calls.clear()
        os.rename(vault / "a", vault / "b")
        await settle(running, quiet=1.5, limit_s=120)
        await assert_verified(running)
        assert edited == ["rescan", "b/n003.md"]
        revisions = await _revisions(core, before)
        assert {(p, s) for p, kind, s in revisions if kind == "rename"} == {
            (f"b/n{i:03d}.md", f"a/n{i:03d}.md") for i in range(20)
        }, revisions
        assert {t.split("\n")[0] for t in fake_ollama.embedded_texts()} <= {"n003 > N3"}
