"""Ingestion against the real Neo4j and the fake Ollama: provenance, O(note) updates, no stale
fact."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from knotwork.check.verify import snapshot, verify_vault
from knotwork.core import Core, open_core
from knotwork.errors import KnotworkError
from knotwork.ingest import extract, modelcalls
from knotwork.ingest.chunk import CHUNKER_VERSION
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.rows import FACTS_VERSION
from knotwork.ingest.sync import sync_vault
from knotwork.llm.vectors import PROBE_TEXT
from knotwork.retrieve.notes import note_history, vault_stats
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import ad_hoc, put, stale_revisions, stored_notes


async def facts(core: Core, vault: str = "t") -> list[str]:
    return (await snapshot(core.store, vault))["facts"]


async def rel(core: Core, source: str, relation: str) -> list[dict[str, Any]]:
    return await ad_hoc(
        core,
        "MATCH (n:Note {vault: 't', path: $source})-[r]->(o) WHERE type(r) = $relation "
        "AND r.source = $source RETURN properties(r) AS r, "
        "coalesce(o.path, o.key) AS target, labels(o) AS labels ORDER BY r.line",
        {"source": source, "relation": relation},
        write=False,
    )


async def test_removing_a_link_removes_its_relation(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    put(vault, "People/Alice.md", "# Alice\nAn engineer.\n")
    put(vault, "Carol.md", "# Carol\n\nCarol works with [[Alice]] on the graph.\n")
    await sync_vault(ingestor)
    [fact] = await rel(core, "Carol.md", "WORKS_WITH")
    assert fact["target"] == "People/Alice.md"
    assert fact["r"]["extractor"] == "wikilink" and fact["r"]["line"] == 3
    assert fact["r"]["chunk_id"] and fact["r"]["recorded_at"] is not None
    put(vault, "Carol.md", "# Carol\n\nCarol works alone on the graph.\n")
    report = await sync_vault(ingestor)
    assert report.written == 1 and report.unchanged == 1
    assert await rel(core, "Carol.md", "WORKS_WITH") == []
    assert not [f for f in await facts(core) if "WORKS_WITH" in f]


async def test_changing_a_frontmatter_value_leaves_only_the_new_one(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    put(vault, "Bob.md", "---\nrole: engineer\nstatus: active\n---\n# Bob\n")
    await sync_vault(ingestor)
    assert [f["target"] for f in await rel(core, "Bob.md", "HAS_ROLE")] == ["engineer"]
    put(vault, "Bob.md", "---\nrole: manager\nstatus: active\n---\n# Bob\n")
    await sync_vault(ingestor)
    roles = await rel(core, "Bob.md", "HAS_ROLE")
    assert [f["target"] for f in roles] == ["manager"]
    assert roles[0]["r"]["extractor"] == "frontmatter" and roles[0]["r"]["line"] == 2
    nodes = (await snapshot(core.store, "t"))["nodes"]
    assert "entity:engineer" not in nodes and "entity:manager" in nodes


async def test_a_frontmatter_value_too_long_is_a_warning_and_the_rest_is_written(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    summary = "A paragraph pasted into a property. " * 8  # 288 characters
    put(vault, "Bob.md", f"---\nrole: engineer\nsummary: {summary}\n---\n# Bob\nSee [[Alice]].\n")
    report = await sync_vault(ingestor)
    assert report.written == 1 and report.errors == []
    assert report.warnings == [
        "Bob.md:3: frontmatter value of 'summary' longer than 200 characters ignored"
    ]
    assert [f["target"] for f in await rel(core, "Bob.md", "HAS_ROLE")] == ["engineer"]
    assert await rel(core, "Bob.md", "HAS_PROPERTY") == []
    assert [f["r"]["line"] for f in await rel(core, "Bob.md", "SEE_ALSO")] == [6]


async def test_deleting_a_note_removes_exactly_its_facts(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    put(vault, "A.md", '---\nrole: lead\nproject: "[[Graph]]"\n---\nA works with [[B]] #team\n')
    put(vault, "B.md", "B reports to [[A]] and uses [[Graph]].\n#team\n")
    put(vault, "Graph.md", "---\naliases: [G]\nstatus: active\n---\nSee [[A]] and [[Missing]].\n")
    await sync_vault(ingestor)
    before = [f for f in await facts(core) if not f.startswith("A.md|")]
    assert any(f.startswith("A.md|") for f in await facts(core))
    await ingestor.delete("A.md")
    after = await facts(core)
    assert not any(f.startswith("A.md|") for f in after)
    # Other notes' facts are unchanged, except that links to A now point to a placeholder.
    assert [f.replace("|note:A.md|", "|unresolved:a|") for f in before] == after
    assert "entity:lead" not in (await snapshot(core.store, "t"))["nodes"]


async def test_unchanged_vault_writes_nothing_and_calls_no_model(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    put(vault, "One.md", "# One\n\nFirst paragraph.\n\nSecond paragraph.\n")
    put(vault, "Two.md", "# Two\n\nLinks to [[One]].\n")
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=True)
    first = await sync_vault(ingestor)
    assert first.written == 2 and first.embedded >= 2
    revisions = await ad_hoc(core, "MATCH (v:Revision) RETURN count(v) AS n", {}, write=False)
    calls = len(fake_ollama.calls)
    second = await sync_vault(ingestor)
    assert (second.written, second.unchanged, second.embedded) == (0, 2, 0)
    assert len(fake_ollama.calls) == calls
    again = await ad_hoc(core, "MATCH (v:Revision) RETURN count(v) AS n", {}, write=False)
    assert again == revisions


async def test_editing_one_paragraph_reembeds_and_reextracts_only_that_chunk(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    core = dataclasses.replace(core, settings=core.settings.model_copy(update={"chunk_size": 200}))
    paragraphs = [
        f"Paragraph {i} talks about topic {i} at some length to fill it up. " * 2 for i in range(4)
    ]
    put(vault, "Long.md", "\n\n".join(paragraphs) + "\n")
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=True)
    first = await sync_vault(ingestor)
    assert first.chunks == 4 and first.embedded == 4 and first.extracted == 4
    fake_ollama.calls.clear()
    paragraphs[2] = "Paragraph two was rewritten entirely, with new words. " * 2
    put(vault, "Long.md", "\n\n".join(paragraphs) + "\n")
    second = await sync_vault(ingestor)
    assert second.embedded == 1 and second.extracted == 1
    embedded = fake_ollama.embedded_texts()
    assert len(embedded) == 1 and "rewritten entirely" in embedded[0]
    chats = fake_ollama.calls_to("/api/chat")
    assert len(chats) == 1 and "rewritten entirely" in json.dumps(chats[0].body)
    chunks = (await snapshot(core.store, "t"))["chunks"]
    assert len(chunks) == 4 and all("|done|done|" in c for c in chunks)


async def test_ollama_down_keeps_text_and_structure_and_retries_later(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    put(vault, "Ann.md", "---\nrole: chemist\n---\nAnn works with [[Ben]].\n")
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=True)
    fake_ollama.down = True
    report = await sync_vault(ingestor)
    assert report.written == 1 and report.embedded == 0
    assert "Ann.md: embedding model unavailable; 1 chunk waits for `knotwork retry`" in (
        report.warnings
    ), report.warnings
    snap = await snapshot(core.store, "t")
    assert any("|WORKS_WITH|note:Ann.md|unresolved:ben|" in f for f in snap["facts"])
    assert any("|HAS_ROLE|note:Ann.md|entity:chemist|" in f for f in snap["facts"])
    assert all("|pending|pending|" in c for c in snap["chunks"])
    hits = await ad_hoc(
        core,
        "CALL db.index.fulltext.queryNodes('chunk_text_en', 'Ann') YIELD node "
        "RETURN node.note_path AS path",
        {},
        write=False,
    )
    assert hits == [{"path": "Ann.md"}], "text is searchable while the models are down"
    fake_ollama.down = False
    fake_ollama.chat_script = lambda body: json.dumps(
        {
            "entities": [{"name": "Ann", "type": "person"}, {"name": "Ben", "type": "person"}],
            "triples": [{"subject": "Ann", "predicate": "works with", "object": "Ben"}],
        }
    )
    embedded, extracted = await ingestor.retry_pending()
    assert (embedded, extracted) == (1, 1)
    snap = await snapshot(core.store, "t")
    assert all("|done|done|" in c for c in snap["chunks"])
    assert any("|WORKS_WITH|entity:ann|entity:ben|llm|" in f for f in snap["facts"])
    assert any("|WORKS_WITH|note:Ann.md|unresolved:ben|wikilink|" in f for f in snap["facts"])


async def test_garbage_model_output_is_retried_once_then_recorded(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    def garbage(body: dict[str, Any]) -> str:  # for this text: the model's probe fits
        probe = PROBE_TEXT in json.dumps(body, ensure_ascii=False)
        return '{"entities": [], "triples": []}' if probe else "this is not json {"

    fake_ollama.chat_script = garbage
    put(vault, "G.md", "She lives in [[Rome]].\n")
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=True)
    report = await sync_vault(ingestor)
    assert len(fake_ollama.calls_to("/api/chat")) == 3  # twice, then the probe
    assert any("invalid model output" in w for w in report.warnings)
    rows = await ad_hoc(
        core,
        "MATCH (c:Chunk {vault: 't'}) RETURN c.extraction_state AS s, c.extraction_error AS e",
        {},
        write=False,
    )
    assert rows[0]["s"] == "error" and "not JSON" in rows[0]["e"]
    assert any("|LOCATED_IN|note:G.md|unresolved:rome|" in f for f in await facts(core))


async def test_links_resolve_when_the_target_appears_and_unresolve_when_it_goes(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    put(vault, "Hub.md", "Works with [[Dana]] and [[Projects/Atlas|the atlas]].\n")
    await sync_vault(ingestor)
    lines = await facts(core)
    assert any("|unresolved:dana|" in f for f in lines)
    assert any("|unresolved:projects/atlas|" in f for f in lines)
    put(vault, "team/Dana.md", "# Dana\n")
    put(vault, "Projects/Atlas.md", "# Atlas\n")
    await sync_vault(ingestor)
    lines = await facts(core)
    assert any("|WORKS_WITH|note:Hub.md|note:team/Dana.md|" in f for f in lines)
    assert any("|WORKS_WITH|note:Hub.md|note:Projects/Atlas.md|" in f for f in lines)
    assert not any(n.startswith("unresolved:") for n in (await snapshot(core.store, "t"))["nodes"])
    (vault / "team/Dana.md").unlink()
    await sync_vault(ingestor)
    lines = await facts(core)
    assert any("|WORKS_WITH|note:Hub.md|unresolved:dana|" in f for f in lines), lines


async def test_rename_keeps_embeddings_and_relinks(
    core: Core, vault: Path, fake_ollama: FakeOllama, ingestor: Ingestor
) -> None:
    put(vault, "Old/Eve.md", "# Eve\n\nEve knows a lot about graphs.\n")
    put(vault, "Fan.md", "Fan of [[Eve]].\n")
    await sync_vault(ingestor)
    fake_ollama.calls.clear()
    (vault / "New").mkdir()
    (vault / "Old/Eve.md").rename(vault / "New/Eve.md")
    report = await sync_vault(ingestor)
    assert report.renamed == 1 and report.embedded == 0
    assert fake_ollama.embedded_texts() == []
    lines = await facts(core)
    assert any("|note:Fan.md|note:New/Eve.md|" in f for f in lines)
    snap = await snapshot(core.store, "t")
    assert not any(n.startswith("Old/") for n in snap["notes"])
    assert all("|done|" in c for c in snap["chunks"])


async def test_chunks_are_captioned_by_their_heading_for_neo4j_browser(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    # Browser captions a node by its `name`, else `title`: chunks carry their own heading there,
    # the note's title above the first heading, and a rename re-captions the latter.
    put(vault, "Alice.md", "Intro line.\n\n# Work\nAn engineer.\n\n## Projects\nThe graph.\n")
    await sync_vault(ingestor)

    async def titles() -> list[str]:
        rows = await ad_hoc(
            core,
            "MATCH (c:Chunk {vault: 't'}) RETURN c.title AS title ORDER BY c.ord",
            {},
            write=False,
        )
        return [r["title"] for r in rows]

    assert await titles() == ["Alice", "Work", "Projects"]
    (vault / "Alice.md").rename(vault / "Alice Smith.md")
    await sync_vault(ingestor)
    assert await titles() == ["Alice Smith", "Work", "Projects"]


async def test_stats_show_no_extraction_waiting_once_extraction_is_off(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    put(vault, "Ann.md", "# Ann\nAnn works with [[Ben]].\n")
    fake_ollama.down = True  # the chunk is left pending extraction
    await sync_vault(Ingestor(core, root=vault, vault="default", extract_enabled=True))
    fake_ollama.down = False
    on = await vault_stats(core)
    assert (on["extraction"], on["pending_extractions"]) == ("on", 1)
    async with open_core(core.settings.model_copy(update={"extract": False})) as off_core:
        off = await vault_stats(off_core)
    assert (off["extraction"], off["pending_extractions"]) == ("off", 0)
    assert off["chunks"] == on["chunks"] == 1


async def test_a_new_chunker_rewrites_unchanged_notes_once(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    put(vault, "Ann.md", "# Ann\n\nAnn works with [[Ben]].\n")
    await sync_vault(ingestor)
    assert FACTS_VERSION % 100 == CHUNKER_VERSION  # the chunker's version is part of it
    # As a graph written by the previous chunker stores it:
    await ad_hoc(
        core,
        "MATCH (n:Note {vault: 't'}) SET n.facts_version = $old",
        {"old": FACTS_VERSION - 1},
        write=True,
    )
    report = await sync_vault(ingestor)
    assert (report.written, report.unchanged) == (1, 0)
    again = await sync_vault(ingestor)
    assert (again.written, again.unchanged) == (0, 1)


async def test_a_note_moved_while_its_facts_are_outdated_is_still_a_move(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """A note moved by the user in the same sync that rewrites every note for new rules (a
    new FACTS_VERSION after an upgrade) is found by its hash as before: a rename, its
    embeddings kept and its history carried on, not a new note beside a deleted one."""
    put(vault, "Ann.md", "# Ann\n\nAnn works with [[Ben]].\n")
    put(vault, "Ben.md", "# Ben\n\nBen knows Ann.\n")
    await sync_vault(ingestor)
    await ad_hoc(
        core,
        "MATCH (n:Note {vault: 't'}) SET n.facts_version = $old",
        {"old": FACTS_VERSION - 1},
        write=True,
    )
    (vault / "People").mkdir()
    (vault / "Ann.md").rename(vault / "People/Ann.md")
    report = await sync_vault(ingestor)
    assert (report.renamed, report.written, report.deleted, report.embedded) == (1, 1, 0, 0)
    kinds = await ad_hoc(
        core,
        "MATCH (v:Revision {vault: 't'}) WHERE v.path IN ['Ann.md', 'People/Ann.md'] "
        "RETURN v.path AS path, v.kind AS kind, v.renamed_from AS source ORDER BY v.at, v.kind",
    )
    assert kinds == [
        {"path": "Ann.md", "kind": "upsert", "source": None},
        {"path": "People/Ann.md", "kind": "rename", "source": "Ann.md"},
        {"path": "Ann.md", "kind": "renamed", "source": None},  # the old path closed with it
    ]
    assert set(await stored_notes(core, "t")) == {"Ben.md", "People/Ann.md"}
    assert await verify_vault(ingestor) == []


async def test_a_notes_history_follows_it_through_its_renames(core: Core, vault: Path) -> None:
    """History of a note moved twice, edited between: its revisions at each path it had, newest
    first, each saying the path; not the revisions of another note that took an old path
    after it."""
    ingestor = Ingestor(core, root=vault, vault=core.settings.vault_name, extract_enabled=False)
    put(vault, "Ann.md", "# Ann\n\nAnn works with [[Ben]].\n")
    await sync_vault(ingestor)
    (vault / "Ann.md").rename(vault / "Anna.md")
    await sync_vault(ingestor)
    put(vault, "Anna.md", "# Ann\n\nAnn works with [[Cy]].\n")
    await sync_vault(ingestor)
    (vault / "People").mkdir()
    (vault / "Anna.md").rename(vault / "People/Anna.md")
    put(vault, "Ann.md", "# Another Ann\n")  # a new note at the first path
    await sync_vault(ingestor)
    rows = await note_history(core, "People/Anna.md")
    assert [(r["path"], r["kind"], r["renamed_from"]) for r in rows] == [
        ("People/Anna.md", "rename", "Anna.md"),
        ("Anna.md", "upsert", None),
        ("Anna.md", "rename", "Ann.md"),
        ("Ann.md", "upsert", None),
    ]
    assert [r["path"] for r in await note_history(core, "People/Anna.md", limit=2)] == [
        "People/Anna.md",
        "Anna.md",
    ]
    # The first path's history is the path's: the new note's revision, then the old one's
    # there, closed as it moved away; no rename of it leads anywhere else.
    assert [(r["path"], r["kind"]) for r in await note_history(core, "Ann.md")] == [
        ("Ann.md", "upsert"),
        ("Ann.md", "renamed"),
        ("Ann.md", "upsert"),
    ]
    # A note the older path held before, since deleted, is no part of it.
    put(vault, "Draft.md", "# Draft one\n")
    await sync_vault(ingestor)
    (vault / "Draft.md").unlink()
    await sync_vault(ingestor)
    put(vault, "Draft.md", "# Draft two\n")
    await sync_vault(ingestor)
    (vault / "Draft.md").rename(vault / "Ideas.md")
    await sync_vault(ingestor)
    assert [(r["path"], r["kind"]) for r in await note_history(core, "Ideas.md")] == [
        ("Ideas.md", "rename"),
        ("Draft.md", "upsert"),
    ]


async def test_a_rename_lists_no_fact_it_kept_as_removed_and_added(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """A note moved with the same text asserts the same facts from chunks that now sit at the
    new path: its rename revision lists none of them as removed and added again (their keys
    differ only in the chunk's id). What a move with an edit changed is still listed, and each
    revision still records every fact the note asserts."""

    def named(body: dict[str, Any]) -> str:  # the people a section names, the first's partners
        data = json.dumps(body["messages"][-1]["content"])
        names = [n for n in ("Ann", "Ben", "Cy", "Dora") if n in data]
        return json.dumps(
            {
                "entities": [{"name": n, "type": "person"} for n in names],
                "triples": [
                    {"subject": names[0], "predicate": "works with", "object": n} for n in names[1:]
                ],
            }
        )

    fake_ollama.chat_script = named
    ingestor = Ingestor(core, root=vault, vault=core.settings.vault_name, extract_enabled=True)
    put(vault, "Ben.md", "# Ben\n\nAn engineer.\n")
    put(
        vault,
        "Ann.md",
        "# Ann\n\nAnn works with [[Ben]] and Ben.\n\n## Later\n\nSee [[Ann]], Dora.\n",
    )
    await sync_vault(ingestor)
    (vault / "Ann.md").rename(vault / "Anna.md")  # a sync finds the move
    await sync_vault(ingestor)
    (vault / "People").mkdir()
    (vault / "Anna.md").rename(vault / "People/Anna.md")  # the watcher's move
    await ingestor.rename("Anna.md", "People/Anna.md")
    rows = await note_history(core, "People/Anna.md")
    assert [(r["kind"], r["renamed_from"], r["added"], r["removed"]) for r in rows[:2]] == [
        ("rename", "Anna.md", [], []),
        ("rename", "Ann.md", [], []),
    ]
    assert await stale_revisions(core, core.settings.vault_name) == {}
    # Moved and edited on the way (the watcher reads the new file): its second section's
    # facts change, the first section's do not.
    put(vault, "Ann.md", "# Ann\n\nAnn works with [[Ben]] and Ben.\n\n## Later\n\nSee [[Cy]].\n")
    (vault / "People/Anna.md").unlink()
    await ingestor.rename("People/Anna.md", "Ann.md")
    rows = await note_history(core, "Ann.md", limit=2)
    assert [r["kind"] for r in rows] == ["extract", "rename"]  # the new section's, then
    edited = rows[1]
    assert edited["renamed_from"] == "People/Anna.md"
    assert [f.split("|")[:5] for f in edited["added"]] == [
        ["SEE_ALSO", "", "cy", "wikilink", "7"],
    ]
    assert [f.split("|")[:5] for f in edited["removed"]] == [
        ["SEE_ALSO", "", "ann", "wikilink", "7"],
        ["WORKS_WITH", "ann", "dora", "llm", "5"],
    ]
    assert await stale_revisions(core, core.settings.vault_name) == {}


async def test_an_edit_that_changes_no_fact_lists_none_as_removed_and_added(
    core: Core, vault: Path
) -> None:
    """Words changed beside a link give its chunk a new id, but the note asserts the same fact
    on the same line: the edit's revision (and the write's answer) lists nothing added or
    removed, while a fact the edit did change is listed."""
    ingestor = Ingestor(core, root=vault, vault=core.settings.vault_name, extract_enabled=False)
    put(vault, "Ben.md", "# Ben\n\nBen reports to [[Cy]]; his cat is [[Whiskers]].\n")
    await sync_vault(ingestor)
    put(vault, "Ben.md", "# Ben\n\nBen reports to [[Cy]]; his old cat is [[Whiskers]].\n")
    outcome = await ingestor.upsert_path("Ben.md")
    assert (outcome.added, outcome.removed) == ([], [])
    put(vault, "Ben.md", "# Ben\n\nBen reports to [[Dee]]; his old cat is [[Whiskers]].\n")
    outcome = await ingestor.upsert_path("Ben.md")
    assert [f.split("|")[:5] for f in outcome.added] == [["REPORTS_TO", "", "dee", "wikilink", "3"]]
    assert [f.split("|")[:5] for f in outcome.removed] == [
        ["REPORTS_TO", "", "cy", "wikilink", "3"]
    ]
    rows = await note_history(core, "Ben.md")
    assert [(r["kind"], len(r["added"]), len(r["removed"])) for r in rows] == [
        ("upsert", 1, 1),
        ("upsert", 0, 0),
        ("upsert", 2, 0),
    ]
    assert await stale_revisions(core, core.settings.vault_name) == {}


async def test_progress_counts_the_files_read_before_the_writes(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """Counted once read, a group of files at a time: the count reaches all of them (told
    before each file, it would stand at 4 of 5 while the sync went on)."""
    for i in range(5):
        put(vault, f"N{i}.md", f"# N{i}\n\nNote {i}.\n")
    calls: list[tuple[int, int, str]] = []
    await sync_vault(ingestor, lambda done, total, note: calls.append((done, total, note)))
    reading = [c for c in calls if c[2].startswith("reading ")]
    assert reading == [(0, 5, "reading notes: N0.md"), (5, 5, "reading notes: N4.md")]
    assert calls[: len(reading)] == reading  # the bar moves from the first file on
    written = [c for c in calls if c[2].startswith("writing notes: ")]
    assert written[-1] == (5, 5, "writing notes: N4.md")  # then the writes, to the last note


async def test_a_large_notes_embedding_moves_the_progress_slice_by_slice(
    settings: Settings, empty_db: object, vault: Path, fake_ollama: FakeOllama
) -> None:
    """A note of many sections held a bar that counted notes still for all of its embedding
    (a slow model: minutes): its chunks are counted as each slice of them is embedded, before
    the notes are written."""
    put(vault, "Small.md", "# Small\n\nA short note.\n")
    put(vault, "Big.md", "".join(f"## Part {i}\n\nPart {i} of a big note.\n\n" for i in range(20)))
    calls: list[tuple[int, int, str]] = []
    sliced = settings.model_copy(update={"embed_batch_size": 2})  # slices of 8 texts
    async with open_core(sliced) as core:
        await core.ensure_ready()
        ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
        await sync_vault(ingestor, lambda *call: calls.append(call))
    embedding = [call for call in calls if call[2].startswith("embedding ")]
    assert embedding == [
        (0, 21, "embedding chunks: Big.md"),
        (8, 21, "embedding chunks: Big.md"),
        (16, 21, "embedding chunks: Big.md"),
        (21, 21, "embedding chunks: Small.md"),
    ], calls
    assert len(fake_ollama.embedded_texts()) == 21  # each once
    first_write = next(i for i, call in enumerate(calls) if call[2].startswith("writing "))
    assert calls.index(embedding[-1]) < first_write


async def test_a_note_that_fails_in_a_sync_leaves_the_links_to_it_resolved_elsewhere(
    core: Core, vault: Path, ingestor: Ingestor, monkeypatch: Any
) -> None:
    """A sync links to notes of later batches through placeholders their batch fills; when a
    note's write fails, the links to it move to the next note its key names, or an Unresolved
    placeholder, and no placeholder note is left."""
    put(vault, "Hub.md", "Works with [[Carla]] and [[Dino]].\n")
    put(vault, "Carla.md", "# Carla\n")
    put(vault, "people/Carla.md", "# Carla too\n")
    put(vault, "Dino.md", "# Dino\n")
    original = Ingestor.commit

    async def commit(self: Ingestor, prepared: Any, *told: Any) -> Any:
        if any(w.path in ("Carla.md", "Dino.md") for w in prepared.batch.writes):
            raise KnotworkError("refused for the test")
        return await original(self, prepared, *told)

    monkeypatch.setattr(Ingestor, "commit", commit)
    report = await sync_vault(ingestor)
    assert len(report.errors) == 2, report.errors
    lines = await facts(core)
    assert any("|WORKS_WITH|note:Hub.md|note:people/Carla.md|" in f for f in lines), lines
    assert any("|WORKS_WITH|note:Hub.md|unresolved:dino|" in f for f in lines), lines
    placeholders = await core.store._run(
        "MATCH (n:Note {vault: 't'}) WHERE n.content_hash IS NULL RETURN n.path AS path",
        {},
        write=False,
    )
    assert placeholders == []
    monkeypatch.setattr(Ingestor, "commit", original)
    await sync_vault(ingestor)
    lines = await facts(core)
    assert any("|WORKS_WITH|note:Hub.md|note:Carla.md|" in f for f in lines), lines
    assert any("|WORKS_WITH|note:Hub.md|note:Dino.md|" in f for f in lines), lines
    assert not any(n.startswith("unresolved:") for n in (await snapshot(core.store, "t"))["nodes"])


async def test_a_note_that_fails_in_a_sync_leaves_the_history_of_notes_mentioning_it_true(
    core: Core, vault: Path, ingestor: Ingestor, monkeypatch: Any
) -> None:
    """A note mentioned by another written earlier in the sync (through its placeholder)
    fails: the mention goes with the placeholder, and the mentioning note's revision says so;
    the next sync brings both back."""
    put(vault, "Hub.md", "# Hub\n\nLunch with Dino Ferri today.\n")
    put(vault, "Dino Ferri.md", "# Dino Ferri\n")
    original = Ingestor.commit

    async def commit(self: Ingestor, prepared: Any, *told: Any) -> Any:
        if any(w.path == "Dino Ferri.md" for w in prepared.batch.writes):
            raise KnotworkError("refused for the test")
        return await original(self, prepared, *told)

    monkeypatch.setattr(Ingestor, "commit", commit)
    ingestor.settings = ingestor.settings.model_copy(update={"ingest_batch": 1})
    report = await sync_vault(ingestor)
    assert len(report.errors) == 1, report.errors
    assert list(await stored_notes(core, "t")) == ["Hub.md"]
    assert not any("MENTIONS" in f for f in await facts(core))
    assert await stale_revisions(core, "t") == {}
    monkeypatch.setattr(Ingestor, "commit", original)
    await sync_vault(ingestor)
    assert any("|MENTIONS|note:Hub.md|note:Dino Ferri.md|" in f for f in await facts(core))
    assert await stale_revisions(core, "t") == {}


async def test_pending_chunks_are_embedded_a_slice_at_a_time_each_kept_as_it_comes(
    core: Core, vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Embeddings left pending are asked for a few batches at a time and stored as each
    comes: the model failing part-way keeps what it gave, and the rest waits."""
    fake_ollama.down = True
    for i in range(30):
        put(vault, f"N{i:02d}.md", f"# Note {i}\n\nText of note {i}.\n")
    small = dataclasses.replace(
        core, settings=core.settings.model_copy(update={"embed_batch_size": 8})
    )
    ingestor = Ingestor(small, root=vault, vault="t", extract_enabled=False)
    await sync_vault(ingestor)
    fake_ollama.down = False
    monkeypatch.setattr(modelcalls, "EMBED_SLICE_BATCHES", 2)
    slice_size = 16
    real = ingestor.models.embed
    asked: list[int] = []

    async def second_fails(
        texts: list[str], chunks: Mapping[str, str] | None = None
    ) -> list[list[float]] | None:
        asked.append(len(texts))
        return None if len(asked) == 2 else await real(texts, chunks)

    monkeypatch.setattr(ingestor.models, "embed", second_fails)
    embedded, _ = await ingestor.retry_pending()
    assert asked == [slice_size, 30 - slice_size] and embedded == slice_size
    monkeypatch.setattr(ingestor.models, "embed", real)
    embedded, _ = await ingestor.retry_pending()
    assert embedded == 30 - slice_size


async def test_a_new_note_too_short_to_be_mentioned_is_linked_by_the_next_edit(
    core: Core, vault: Path
) -> None:
    """ "AI.md" has no mention key (a name of two letters), yet it is a name links resolve to:
    the names the next edit resolves against must hold it, and lose it once it moves."""
    put(vault, "X.md", "# X\n\nNothing yet.\n")
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=False)
    await sync_vault(ingestor)
    put(vault, "AI.md", "# AI\n\nShort.\n")
    await ingestor.upsert_path("AI.md")
    put(vault, "X.md", "# X\n\nSee [[AI]].\n")
    await ingestor.upsert_path("X.md")
    facts = (await snapshot(core.store, "t"))["facts"]
    assert any("|note:X.md|note:AI.md|" in f for f in facts), facts
    (vault / "AI.md").rename(vault / "ML.md")
    await ingestor.rename("AI.md", "ML.md")
    put(vault, "Y.md", "# Y\n\nSee [[AI]] and [[ML]].\n")
    await ingestor.upsert_path("Y.md")
    facts = (await snapshot(core.store, "t"))["facts"]
    assert any("|note:Y.md|note:ML.md|" in f for f in facts), facts
    assert any("|note:Y.md|unresolved:ai|" in f for f in facts), facts
    assert not any("note:AI.md" in f for f in facts), facts


async def test_a_chunk_the_model_never_finishes_holds_back_no_other(
    core: Core, vault: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunk whose every call times out (too long for a CPU model) goes behind the others;
    one the model refuses (a prompt too long for its context) is recorded as an error at its
    first refusal. Before, the first failing chunk came first in every retry
    and its failure postponed every chunk after it, for ever."""
    fake_ollama.chat_script = lambda body: json.dumps({"entities": [], "triples": []})
    for name in ("A slow one", "B refused", "Cee", "Dee"):
        put(vault, f"{name}.md", f"# {name}\n\nText of {name}.\n")
    real = extract.extract_chunk

    async def failing(llm: Any, heading: str, text: str) -> extract.ExtractionResult:
        if "A slow one" in text:
            return extract.ExtractionResult(None, "model call failed: ReadTimeout: timed out")
        if "B refused" in text:
            error = "model call failed: ResponseError: prompt too long (status code: 400)"
            return extract.ExtractionResult(None, error, refused=True)
        return await real(llm, heading, text)

    monkeypatch.setattr(extract, "extract_chunk", failing)
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=True)
    report = await sync_vault(ingestor)
    assert any("postponed" in w for w in report.warnings)

    async def states() -> dict[str, str]:
        rows = await ad_hoc(
            core,
            "MATCH (c:Chunk {vault: 't'}) RETURN c.note_path AS path, c.extraction_state AS s",
            {},
            write=False,
        )
        return {r["path"]: r["s"] for r in rows}

    assert (await states())["A slow one.md"] == "pending"
    for _ in range(4 * modelcalls.MAX_EXTRACTION_TRIES):  # A and B take turns at the back
        await ingestor.retry_pending()
    assert await states() == {
        "A slow one.md": "pending",  # the model's time-out: never the chunk's error
        "B refused.md": "error",
        "Cee.md": "done",
        "Dee.md": "done",
    }


async def test_a_model_that_refuses_every_request_makes_no_chunk_an_error(
    core: Core, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 400 for every request (a model that cannot chat, a schema it cannot take) is a
    setting to fix: no chunk is blamed, all stay pending for `knotwork retry`."""
    for name in ("One", "Two"):
        put(vault, f"{name}.md", f"# {name}\n\nText of {name}.\n")

    async def refusing(llm: Any, heading: str, text: str) -> extract.ExtractionResult:
        error = "model call failed: ResponseError: does not support chat (status code: 400)"
        return extract.ExtractionResult(None, error, refused=True)

    monkeypatch.setattr(extract, "extract_chunk", refusing)
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=True)
    await sync_vault(ingestor)
    for _ in range(3 * modelcalls.MAX_EXTRACTION_TRIES):
        await ingestor.retry_pending()
    rows = await ad_hoc(
        core, "MATCH (c:Chunk {vault: 't'}) RETURN c.extraction_state AS s", {}, write=False
    )
    assert [r["s"] for r in rows] == ["pending", "pending"]


async def test_the_sync_progress_moves_with_each_chunk_extracted(
    core: Core, vault: Path, fake_ollama: FakeOllama
) -> None:
    """The model's minutes per batch are not a bar that stands still: the batch's notes are
    parsed, their chunks embedded (counted in chunks), the notes counted as their write lands,
    then each chunk extracted is a step counted in chunks (no "0 of 2 notes" while the model
    works), and the facts written are the same."""
    fake_ollama.chat_script = lambda body: json.dumps({"entities": [], "triples": []})
    put(vault, "Ann.md", "# Ann\n\nAnn works with Ben.\n\n# Later\n\nAnn moved.\n")
    put(vault, "Ben.md", "# Ben\n\nBen is a chemist.\n")
    calls: list[tuple[int, int, str]] = []
    ingestor = Ingestor(core, root=vault, vault="t", extract_enabled=True)
    report = await sync_vault(ingestor, lambda *call: calls.append(call))
    assert report.extracted == 3
    assert [call for call in calls if not call[2].startswith("reading ")] == [
        (0, 2, "parsing notes: Ann.md"),
        (0, 3, "embedding chunks: Ann.md"),
        (3, 3, "embedding chunks: Ben.md"),
        (0, 2, "writing notes: Ann.md"),  # the write under way
        (1, 2, "writing notes: Ann.md"),  # and landed
        (2, 2, "writing notes: Ben.md"),
        (0, 3, "extracting facts from chunks"),  # the model asked about the first
        (1, 3, "extracting facts from chunks"),
        (2, 3, "extracting facts from chunks"),
        (3, 3, "extracting facts from chunks"),
        (2, 2, "writing mentions and links"),  # the sync's last batch, of no note
        (2, 2, "linking similar entities"),
    ], calls
    calls.clear()
    put(vault, "Ben.md", "# Ben\n\nBen is a chemist in Oslo.\n")
    assert (await ingestor.upsert_path("Ben.md")).extracted == 1
    assert calls == [], "the sync's hook does not outlive it"
