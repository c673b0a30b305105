"""The watcher's model extraction runs beside its writes: a slow chat model never holds the next
change out of the graph, and the chunks it has not done yet stay pending, done after. Whatever
changes while the model holds its answer (the note edited, deleted, renamed, written again; a
rescan; the lease lost), the graph ends as a fresh ingest of the folder makes it."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from knotwork.check.verify import snapshot
from knotwork.core import Core
from knotwork.graph.lease import Lease
from knotwork.graph.queries.writes import CHUNK_FACTS_DELETE, CHUNKS_PENDING
from knotwork.ingest import write
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from knotwork.llm.vectors import PROBE_TEXT
from knotwork.watch.watcher import VaultWatcher
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc, stale_revisions, stored_notes
from tests.integration.test_watcher import started

ANSWER = json.dumps(
    {
        "entities": [{"name": "Ann", "type": "person"}, {"name": "Ben", "type": "person"}],
        "triples": [{"subject": "Ann", "predicate": "works with", "object": "Ben"}],
    }
)


class HeldModel:
    """A chat model that answers only once let go: every extraction hangs until then."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.asked = threading.Event()
        self.bodies: list[dict[str, Any]] = []  # every request, in the order asked

    def __call__(self, body: dict[str, Any]) -> str:
        self.bodies.append(body)
        self.asked.set()
        self.go.wait(60)
        return ANSWER


@pytest.fixture
async def held(fake_ollama: FakeOllama) -> AsyncIterator[HeldModel]:
    model = HeldModel()
    fake_ollama.chat_script = model
    yield model
    model.go.set()  # no request thread of the fake left waiting


async def _until(check: Any, limit_s: float = 30.0) -> None:
    deadline = time.monotonic() + limit_s
    while not await check():
        assert time.monotonic() < deadline, f"not true after {limit_s} s"
        await asyncio.sleep(0.05)


async def _pending(core: Core) -> list[str]:
    rows = await core.store.read(
        CHUNKS_PENDING, vault="w", extract=True, limit=100, asked_before=int(time.time() * 1000)
    )
    return sorted(r["note_path"] for r in rows)


async def _watching(
    core: Core, vault: Path, debounce_ms: int = 100
) -> tuple[VaultWatcher, asyncio.Task[None]]:
    return await started(
        core, vault, extract=True, watch_debounce_ms=debounce_ms, watch_rescan_s=0, lease_ttl_s=5
    )


async def test_an_edit_and_a_delete_land_while_the_model_extracts_another_note(
    core: Core, vault: Path, held: HeldModel
) -> None:
    held.go.set()  # the start-up rescan's chunks are extracted at once
    (vault / "Gone.md").write_text("# Gone\n\nA note about to go.\n")
    (vault / "Kept.md").write_text("# Kept\n\nThe first text.\n")
    running, task = await _watching(core, vault)
    try:
        await _until(lambda: _nothing_pending(core))
        held.go.clear()
        held.asked.clear()
        (vault / "Slow.md").write_text("# Slow\n\nAnn works with Ben.\n\n## More\n\nAnd more.\n")
        await asyncio.to_thread(held.asked.wait, 30)  # the model now holds Slow.md's chunk
        (vault / "Gone.md").unlink()
        (vault / "Kept.md").write_text("# Kept\n\nThe second text.\n")
        await _until(lambda: _landed(core))  # while the model still holds its answer (60 s)
        assert not held.go.is_set() and "Slow.md" in await _pending(core)
        assert not running.idle, "the model's work is part of what the watcher is doing"

        held.go.set()
        await _until(lambda: _nothing_pending(core))
        facts = await ad_hoc(
            core,
            "MATCH (:Entity {vault: 'w', key: 'ann'})-[r:WORKS_WITH]->(:Entity {key: 'ben'}) "
            "RETURN r.source AS source, r.extractor AS extractor",
            {},
            write=False,
        )
        assert {"source": "Slow.md", "extractor": "llm"} in facts
    finally:
        running.stop()
        await asyncio.wait_for(task, 30)


async def test_a_watcher_stopping_while_the_model_hangs_stops_and_leaves_the_chunks_pending(
    core: Core, vault: Path, held: HeldModel
) -> None:
    held.go.set()
    running, task = await _watching(core, vault)
    held.go.clear()
    (vault / "Slow.md").write_text("# Slow\n\nAnn works with Ben.\n")
    await asyncio.to_thread(held.asked.wait, 30)
    assert list(await stored_notes(core, "w")) == ["Slow.md"]
    started = time.monotonic()
    running.stop()
    await asyncio.wait_for(task, 30)
    assert time.monotonic() - started < 10, "a stop does not wait for the model"
    assert await _pending(core) == ["Slow.md"]  # done by the next watcher or `knotwork retry`


async def _nothing_pending(core: Core) -> bool:
    return not await _pending(core)


async def _landed(core: Core) -> bool:
    notes = await stored_notes(core, "w")
    rows = await ad_hoc(
        core,
        "MATCH (:Note {vault: 'w', path: 'Kept.md'})-[:HAS_CHUNK]->(c:Chunk) RETURN c.text AS t",
        {},
        write=False,
    )
    return "Gone.md" not in notes and any("second text" in r["t"] for r in rows)


# -- the model's answer held while the note it is about changes --------------------------------

# Two chunks: a pass asks the model about the first one first, and the model holds it.
TEAM = "# Slow\n\nIntro.\n\n## Team\n\nAnn works with Ben.\n"


async def _sound(core: Core, vault: Path) -> list[str]:
    """What is wrong with vault "w": a model fact not from a chunk the graph holds now (of a
    note on disk, marked done, at the chunk's first line, its entities linked), a chunk done
    without the facts its extraction kept, an entity nothing refers to, a note's latest
    revision not listing its facts, or anything a fresh ingest of the folder would make
    otherwise."""
    facts = await ad_hoc(
        core,
        "MATCH (s:Entity {vault: 'w'})-[r]->() WHERE r.extractor = 'llm' "
        "OPTIONAL MATCH (c:Chunk {id: r.chunk_id}) "
        "RETURN r.source AS source, r.line AS line, c.note_path AS path, c.line_start AS start, "
        "c.extraction_state AS state, EXISTS { (c)-[:HAS_ENTITY]->(s) } AS linked",
    )
    wrong = [
        f"model fact {f}"
        for f in facts
        if (f["path"], f["line"], f["state"], f["linked"])
        != (f["source"], f["start"], "done", True)
        or not (vault / f["source"]).is_file()
    ]
    bare = await ad_hoc(
        core,
        # A chunk whose extraction kept triples (the text names both ends: "Intro." none).
        "MATCH (c:Chunk {vault: 'w', extraction_state: 'done'}) "
        "WHERE NOT c.extraction CONTAINS '\"triples\":[]' AND NOT EXISTS { "
        "MATCH (c)-[:HAS_ENTITY]->()-[r]->() WHERE r.chunk_id = c.id AND r.extractor = 'llm' } "
        "RETURN c.note_path + '#' + toString(c.ord) AS chunk",
    )
    wrong += [f"chunk done without its facts: {b['chunk']}" for b in bare]
    orphans = await ad_hoc(
        core,
        "MATCH (e:Entity {vault: 'w'}) WHERE NOT EXISTS { (e)-[r]-() WHERE NOT r:SIMILAR_TO } "
        "RETURN e.key AS key",
    )
    wrong += [f"entity nothing refers to: {o['key']}" for o in orphans]
    wrong += [f"revision of {p}: {v}" for p, v in (await stale_revisions(core, "w")).items()]
    try:
        await sync_vault(Ingestor(core, root=vault, vault="fresh", extract_enabled=True))
        want, have = await snapshot(core.store, "fresh"), await snapshot(core.store, "w")
    finally:
        await core.store.drop_vault("fresh")
    for part, lines in want.items():
        if lines != have[part]:
            only = sorted(set(have[part]) - set(lines))
            wrong.append(f"{part}: fresh {sorted(set(lines) - set(have[part]))}, here {only}")
    return wrong


async def _on_disk(core: Core, vault: Path) -> bool:
    """Whether the graph holds exactly the notes of the folder, as they are now."""
    return await stored_notes(core, "w") == _hashes(vault)


def _hashes(vault: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in vault.glob("*.md")}


async def _settled(core: Core, running: VaultWatcher) -> bool:
    return running.idle and await _nothing_pending(core)


async def _edit(core: Core, vault: Path) -> None:
    """The held chunk's text changes (and so its id)."""
    (vault / "Slow.md").write_text(TEAM.replace("Intro.", "Intro, edited."))


async def _lines(core: Core, vault: Path) -> None:
    """The held chunk grows by a line: the next one keeps its id, one line further down."""
    (vault / "Slow.md").write_text(TEAM.replace("Intro.", "Intro.\nA second line."))


async def _delete(core: Core, vault: Path) -> None:
    (vault / "Slow.md").unlink()


async def _rename(core: Core, vault: Path) -> None:
    (vault / "Slow.md").rename(vault / "Quick.md")


async def _rename_edit(core: Core, vault: Path) -> None:
    (vault / "Slow.md").rename(vault / "Quick.md")
    (vault / "Quick.md").write_text(TEAM.replace("Intro.", "Intro, moved."))


async def _recreate(core: Core, vault: Path) -> None:
    """Deleted, then written again with the same text: the same chunk ids and hashes."""
    (vault / "Slow.md").unlink()
    await _until(lambda: _on_disk(core, vault))  # the delete applied on its own
    (vault / "Slow.md").write_text(TEAM)


async def _twin_edit(core: Core, vault: Path) -> None:
    """The other note whose chunk has the held chunk's text (and hash) is edited."""
    (vault / "Twin.md").write_text("Ann works with Cid.\n")


async def _twin_held_edit(core: Core, vault: Path) -> None:
    """The held one of two chunks of the same text is edited."""
    (vault / "Slow.md").write_text("Ann works with Cid.\n")


SOLO = {"Slow.md": TEAM}
TWINS = {"Slow.md": "Ann works with Ben.\n", "Twin.md": "Ann works with Ben.\n"}


@pytest.mark.parametrize(
    ("notes", "change"),
    [
        (SOLO, _edit),
        (SOLO, _lines),
        (SOLO, _delete),
        (SOLO, _rename),
        (SOLO, _rename_edit),
        (SOLO, _recreate),
        (TWINS, _twin_edit),
        (TWINS, _twin_held_edit),
    ],
    ids=lambda v: v.__name__.strip("_") if callable(v) else "twins" if v is TWINS else "solo",
)
async def test_a_note_changed_while_the_model_holds_its_chunk_leaves_the_facts_of_a_fresh_ingest(
    core: Core,
    vault: Path,
    held: HeldModel,
    notes: dict[str, str],
    change: Callable[[Core, Path], Awaitable[None]],
) -> None:
    (vault / ".keep").write_text("")  # the last note deleted: not a drive away (apply.py)
    held.go.set()
    running, task = await _watching(core, vault)
    try:
        held.go.clear()
        for path, text in notes.items():
            (vault / path).write_text(text)
        await asyncio.to_thread(held.asked.wait, 30)  # the model holds Slow.md's first chunk
        await change(core, vault)
        await _until(lambda: _on_disk(core, vault))  # landed, the model's answer held
        held.go.set()
        await _until(lambda: _settled(core, running))
        assert await _sound(core, vault) == []
    finally:
        running.stop()
        await asyncio.wait_for(task, 30)


async def _model_written(core: Core) -> list[dict[str, Any]]:
    """The model's facts, entity links and extract revisions of vault "w", and its chunks no
    longer pending: what a chunk's extraction writes."""
    return await ad_hoc(
        core,
        "CALL () { MATCH (:Entity {vault: 'w'})-[r]->() WHERE r.extractor = 'llm' "
        "RETURN 'fact' AS what UNION ALL MATCH (:Chunk {vault: 'w'})-[:HAS_ENTITY]->() "
        "RETURN 'entity link' AS what UNION ALL MATCH (r:Revision {vault: 'w', kind: 'extract'}) "
        "RETURN 'revision' AS what UNION ALL MATCH (c:Chunk {vault: 'w'}) "
        "WHERE c.extraction_state <> 'pending' RETURN 'chunk ' + c.extraction_state AS what } "
        "RETURN what",
    )


async def test_a_watcher_stopped_inside_an_extraction_write_leaves_none_of_it(
    core: Core, vault: Path, held: HeldModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model's work is cancelled with the lease: cancelled inside a chunk's write, the
    chunk stays pending with no fact, link or revision of it (one transaction)."""
    inside, real = asyncio.Event(), write.run_query

    async def pausing(tx: Any, query: Any, /, **params: Any) -> Any:
        rows = await real(tx, query, **params)
        if query is CHUNK_FACTS_DELETE:  # the chunk marked done, its facts not yet written
            inside.set()
            await asyncio.sleep(60)
        return rows

    monkeypatch.setattr(write, "run_query", pausing)
    held.go.set()
    running, task = await _watching(core, vault)
    try:
        (vault / "Slow.md").write_text("# Slow\n\nAnn works with Ben.\n")
        await asyncio.wait_for(inside.wait(), 30)
    finally:
        running.stop()
        await asyncio.wait_for(task, 30)
    assert await _model_written(core) == []
    assert await _pending(core) == ["Slow.md"]


async def test_a_lease_taken_while_the_model_answers_gets_no_extraction_written(
    core: Core, vault: Path, held: HeldModel
) -> None:
    """Taken by a writer that does not watch (the API's journal replay after an outage): the
    model's answer that comes before the heartbeat finds the lease lost is not written beside
    that writer; the watcher takes the lease back after it and extracts the chunk then."""
    running, task = await _watching(core, vault)
    try:
        (vault / "Slow.md").write_text("# Slow\n\nAnn works with Ben.\n")
        await asyncio.to_thread(held.asked.wait, 30)
        replay = Lease(core.store, "w", 5)
        await running.lease.release()  # as if it had lapsed while Neo4j was away
        await replay.acquire({"mode": "rest-write", "watches": False})
        held.go.set()
        await asyncio.sleep(1)  # the answer is in; the heartbeat (every 5/3 s) may be to come
        assert await _model_written(core) == []
        await replay.release()
        await _until(lambda: _settled(core, running))
        assert await _sound(core, vault) == []
    finally:
        running.stop()
        await asyncio.wait_for(task, 30)


async def test_a_rescan_beside_the_models_work_leaves_the_facts_of_a_fresh_ingest(
    core: Core, vault: Path, held: HeldModel
) -> None:
    """A rescan (a sync) writes the note whose chunk the model holds: the answer lands after."""
    (vault / "Slow.md").write_text(TEAM)
    running, task = await _watching(core, vault, debounce_ms=60_000)  # no event applied
    try:
        await asyncio.to_thread(held.asked.wait, 30)  # the start-up rescan's chunks
        await _lines(core, vault)
        await running.rescan()
        assert await _on_disk(core, vault)
        held.go.set()
        await _until(lambda: _nothing_pending(core))
        await _until(lambda: _idle_model(running))
        assert await _sound(core, vault) == []
    finally:
        running.stop()
        await asyncio.wait_for(task, 30)


async def _idle_model(running: VaultWatcher) -> bool:
    return not running.model_work.running


async def test_an_answer_landing_between_a_writes_reading_and_its_transaction_is_asked_again(
    core: Core, vault: Path, held: HeldModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit read the held chunk pending (it keeps its text) and writes it so after the
    answer landed: its facts go with the edit's revision, and the next pass asks again."""
    planned, go_on, real = asyncio.Event(), asyncio.Event(), write.write_batch

    async def pausing(store: Any, batch: Any) -> Any:
        if any(w.path == "Slow.md" and not w.is_new for w in batch.writes):
            planned.set()
            await go_on.wait()
        return await real(store, batch)

    monkeypatch.setattr(write, "write_batch", pausing)
    running, task = await _watching(core, vault)
    try:
        (vault / "Slow.md").write_text(TEAM)
        await asyncio.to_thread(held.asked.wait, 30)
        (vault / "Slow.md").write_text(TEAM.replace("Ben.", "Cid."))  # the second chunk only
        await asyncio.wait_for(planned.wait(), 30)
        held.go.set()
        await _until(lambda: _model_facts_of(core, "Slow.md"))
        go_on.set()
        await _until(lambda: _settled(core, running))
        assert len(held.bodies) == 4  # the first chunk twice, each text of the second once
        assert await _sound(core, vault) == []
    finally:
        go_on.set()
        running.stop()
        await asyncio.wait_for(task, 30)


async def _model_facts_of(core: Core, path: str) -> bool:
    rows = await ad_hoc(
        core,
        "MATCH ()-[r]->() WHERE r.extractor = 'llm' AND r.source = $path RETURN count(r) AS n",
        {"path": path},
    )
    return bool(rows[0]["n"])


async def test_a_pass_does_not_ask_the_model_about_a_chunk_deleted_since_it_read_it(
    core: Core, vault: Path, held: HeldModel, fake_ollama: FakeOllama
) -> None:
    """A pass reads its chunks, then asks the model about each, a minute apiece on a CPU: a
    note deleted meanwhile has its chunk skipped, not asked about for nothing."""
    ingestor = Ingestor(core, root=vault, vault="w", extract_enabled=True)
    ingestor.extract_inline = False
    (vault / "A.md").write_text("# A\n\nAnn works with Ben.\n")
    (vault / "B.md").write_text("# B\n\nBen is a chemist.\n")
    await ingestor.upsert_path("A.md")
    await ingestor.upsert_path("B.md")
    assert await _pending(core) == ["A.md", "B.md"]
    passed = asyncio.create_task(ingestor.retry_pending(ask_again=False))
    await asyncio.to_thread(held.asked.wait, 30)  # asked about A.md's chunk, B.md's read too
    await ingestor.delete("B.md")
    held.go.set()
    assert await passed == (0, 1)
    asked = [c for c in fake_ollama.calls_to("/api/chat") if "chemist" in json.dumps(c.body)]
    assert asked == [], "B.md's chunk, deleted, was asked about"
    assert await _pending(core) == []


async def test_the_watcher_logs_why_an_extraction_failed(
    core: Core, vault: Path, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    """Extraction beside the writes still says, in the watcher's log, which note's chunk the
    model answered with garbage (it said so when extraction ran inside the write)."""
    fake_ollama.chat_script = lambda body: (  # for the note: the model's own probe it answers
        '{"entities": [], "triples": []}'
        if PROBE_TEXT in json.dumps(body, ensure_ascii=False)
        else "this is not json at all"
    )
    (vault / "Odd.md").write_text("# Odd\n\nAnn works with Ben.\n")
    with caplog.at_level(logging.WARNING, logger="knotwork.watch.apply"):
        running, task = await _watching(core, vault)
        try:
            await _until(lambda: _nothing_pending(core))
        finally:
            running.stop()
            await asyncio.wait_for(task, 30)
    said = [r.getMessage() for r in caplog.records if "extraction failed" in r.getMessage()]
    assert said and all(m.startswith("Odd.md: ") for m in said), caplog.text
