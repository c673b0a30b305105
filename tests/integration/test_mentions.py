"""Unlinked mentions against the real Neo4j: kept right from both ends, in any order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from knotwork.check.verify import verify_vault
from knotwork.core import Core
from knotwork.ingest import write as write_module
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault
from tests.integration.conftest import ad_hoc, put, stale_revisions


async def mentions(core: Core) -> list[dict[str, Any]]:
    return await ad_hoc(
        core,
        "MATCH (n:Note {vault: 't'})-[r:MENTIONS]->(m:Note) "
        "RETURN n.path AS source, m.path AS target, r.source AS asserted_by, r.line AS line, "
        "r.extractor AS extractor, r.target AS key, r.chunk_id AS chunk_id "
        "ORDER BY source, target",
        {},
        write=False,
    )


def pairs(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(r["source"], r["target"]) for r in rows]


async def assert_fresh(ingestor: Ingestor) -> None:
    assert await verify_vault(ingestor) == []


async def test_mention_found_from_either_end(core: Core, vault: Path, ingestor: Ingestor) -> None:
    put(vault, "Journal.md", "# Journal\n\nLunch with marco rossi.\n\nNothing else.\n")
    await sync_vault(ingestor)
    assert await mentions(core) == []  # nobody is called Marco Rossi yet
    put(vault, "People/Marco Rossi.md", "# Marco\nAn engineer.\n")
    await ingestor.upsert_path("People/Marco Rossi.md")  # the reverse pass finds the journal
    [row] = await mentions(core)
    assert (row["source"], row["target"]) == ("Journal.md", "People/Marco Rossi.md")
    assert row["asserted_by"] == "Journal.md" and row["extractor"] == "mention"
    assert row["line"] == 3 and row["key"] == "marco rossi" and row["chunk_id"]
    await assert_fresh(ingestor)
    # The journal's own revision says what the new note changed in it.
    [rev] = await ad_hoc(
        core,
        "MATCH (v:Revision {vault: 't', path: 'Journal.md', kind: 'mentions'}) "
        "RETURN v.added AS added, v.removed AS removed",
        {},
        write=False,
    )
    assert [a.split("|")[:4] for a in rev["added"]] == [["MENTIONS", "", "marco rossi", "mention"]]


async def test_a_deleted_note_leaves_the_revisions_of_the_notes_that_mentioned_it_true(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """The notes that mentioned a deleted note lose those mentions, and their history says
    so: a revision removing them, by a sync's delete or a single one. Before, the delete took
    the mentions with the note and no revision recorded it."""
    put(vault, "Alice.md", "# Alice\n\nAlice often meets Bob Stone at work.\n")
    put(vault, "Bob Stone.md", "# Bob Stone\n\nAn engineer.\n")
    put(vault, "Carol.md", "# Carol\n\nCarol knows Bob Stone and Alice.\n")
    await sync_vault(ingestor)
    assert pairs(await mentions(core)) == [
        ("Alice.md", "Bob Stone.md"),
        ("Carol.md", "Alice.md"),
        ("Carol.md", "Bob Stone.md"),
    ]
    assert await stale_revisions(core, "t") == {}

    async def removed(path: str) -> list[list[str]]:
        rows = await ad_hoc(
            core,
            "MATCH (v:Revision {vault: 't', path: $path, kind: 'mentions'}) "
            "RETURN v.removed AS removed ORDER BY v.at",
            {"path": path},
        )
        return [[f.split("|")[2] for f in r["removed"]] for r in rows]

    (vault / "Bob Stone.md").unlink()
    await sync_vault(ingestor)
    assert pairs(await mentions(core)) == [("Carol.md", "Alice.md")]
    assert await removed("Alice.md") == [["bob stone"]]
    assert await removed("Carol.md") == [["bob stone"]]
    assert await stale_revisions(core, "t") == {}
    # The same through a single delete, and a note deleted with one it mentions.
    put(vault, "Bob Stone.md", "# Bob Stone\n\nAn engineer.\n")
    await ingestor.upsert_path("Bob Stone.md")
    (vault / "Bob Stone.md").unlink()
    await ingestor.delete("Bob Stone.md")
    assert await removed("Alice.md") == [["bob stone"], [], ["bob stone"]]  # [] when it came
    assert await stale_revisions(core, "t") == {}
    (vault / "Alice.md").unlink()
    (vault / "Carol.md").unlink()
    put(vault, "Keep.md", "# Keep\n")
    await sync_vault(ingestor)
    assert await mentions(core) == [] and await stale_revisions(core, "t") == {}
    await assert_fresh(ingestor)


async def test_a_note_deleted_beside_a_rename_of_one_it_mentions_lists_that_mention_gone(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """One sync renames Bob Stone and deletes Alice, who mentioned him: her history says the
    mention went, once (the rename's batch takes it, then her delete goes)."""
    put(vault, "Alice.md", "# Alice\n\nAlice often meets Bob Stone at work.\n")
    put(vault, "Bob Stone.md", "# Bob Stone\n\nAn engineer.\n")
    await sync_vault(ingestor)
    (vault / "Bob Stone.md").rename(vault / "Robert Stone.md")
    (vault / "Alice.md").unlink()
    await sync_vault(ingestor)
    rows = await ad_hoc(
        core,
        "MATCH (v:Revision {vault: 't', path: 'Alice.md'}) RETURN v.kind AS kind, "
        "v.removed AS removed, v.asserted AS asserted ORDER BY v.at",
    )
    gone = [f.split("|")[2] for r in rows for f in r["removed"] if f.startswith("MENTIONS")]
    assert gone == ["bob stone"], rows
    assert rows[-1]["kind"] == "delete" and rows[-1]["asserted"] == []
    assert await stale_revisions(core, "t") == {}


@pytest.mark.parametrize("batch", [1, 500])
async def test_a_sync_moving_a_note_leaves_the_notes_mentioning_it_unchanged(
    core: Core, vault: Path, ingestor: Ingestor, batch: int
) -> None:
    """A note moved to another folder keeps its name: the notes that mention it mention it
    still, with the same facts, and their histories gain nothing. A sync writes the move in
    one of its batches and rewrites other notes' mentions in its last; the move's batch now
    writes those mentions again itself, so no batch leaves them missing and no history shows
    them going and coming back."""
    ingestor.settings = ingestor.settings.model_copy(update={"ingest_batch": batch})
    put(vault, "Bob Stone.md", "# Bob Stone\n\nAn engineer.\n")
    put(vault, "Alice.md", "# Alice\n\nAlice often meets Bob Stone at work.\n")
    for i in range(3):  # more notes than a batch: the move is not in the sync's last batch
        put(vault, f"Extra {i}.md", f"# Extra {i}\n")
    await sync_vault(ingestor)
    [before] = await mentions(core)
    history = "MATCH (v:Revision {vault: 't', path: $path}) RETURN v.kind AS kind ORDER BY v.at"
    alice = await ad_hoc(core, history, {"path": "Alice.md"}, write=False)

    (vault / "People").mkdir()
    (vault / "Bob Stone.md").rename(vault / "People/Bob Stone.md")
    for i in range(3):
        put(vault, f"New {i}.md", f"# New {i}\n")
    report = await sync_vault(ingestor)
    assert report.renamed == 1
    [after] = await mentions(core)
    assert after["target"] == "People/Bob Stone.md"
    assert {**after, "target": before["target"]} == before, "the same fact, pointing on"
    assert await ad_hoc(core, history, {"path": "Alice.md"}, write=False) == alice
    moved = await ad_hoc(core, history, {"path": "People/Bob Stone.md"}, write=False)
    assert [r["kind"] for r in moved] == ["rename"]
    assert await stale_revisions(core, "t") == {}
    await assert_fresh(ingestor)


async def test_rename_alias_and_delete(core: Core, vault: Path, ingestor: Ingestor) -> None:
    put(vault, "Marco Rossi.md", "# Marco\n")
    put(vault, "Journal.md", "Lunch with Marco Rossi, then Il Rossi again.\n")
    await sync_vault(ingestor)
    assert pairs(await mentions(core)) == [("Journal.md", "Marco Rossi.md")]
    # A rename takes the old name away: the mention goes.
    (vault / "Marco Rossi.md").rename(vault / "Mario Rossi.md")
    await ingestor.rename("Marco Rossi.md", "Mario Rossi.md")
    assert await mentions(core) == []
    await assert_fresh(ingestor)
    # An alias brings it back, through the alias.
    put(vault, "Mario Rossi.md", "---\naliases: [Il Rossi]\n---\n# Marco\n")
    await ingestor.upsert_path("Mario Rossi.md")
    [row] = await mentions(core)
    assert row["target"] == "Mario Rossi.md" and row["key"] == "il rossi"
    await assert_fresh(ingestor)
    # Deleting the named note removes the mention, and only that.
    (vault / "Mario Rossi.md").unlink()
    await ingestor.delete("Mario Rossi.md")
    assert await mentions(core) == []
    await assert_fresh(ingestor)


async def test_links_code_and_self_are_not_mentions(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    put(vault, "Alice Smith.md", "Alice Smith writes about herself.\n")
    put(
        vault,
        "Bob.md",
        "Bob works with [[Alice Smith]].\n\n`Alice Smith` in code.\n\n```\nAlice Smith\n```\n",
    )
    await sync_vault(ingestor)
    assert await mentions(core) == []
    put(vault, "Bob.md", "Bob works with [[Alice Smith]].\n\nAlice Smith again, in plain text.\n")
    await ingestor.upsert_path("Bob.md")
    [row] = await mentions(core)
    assert (row["source"], row["target"], row["line"]) == ("Bob.md", "Alice Smith.md", 3)


async def test_shortest_path_wins_and_moves_with_new_notes(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    put(vault, "deep/down/Project Atlas.md", "The deep one.\n")
    put(vault, "Notes.md", "Status of project atlas is green.\n")
    await sync_vault(ingestor)
    assert pairs(await mentions(core)) == [("Notes.md", "deep/down/Project Atlas.md")]
    put(vault, "Project Atlas.md", "The top one.\n")
    await ingestor.upsert_path("Project Atlas.md")
    assert pairs(await mentions(core)) == [("Notes.md", "Project Atlas.md")]
    await assert_fresh(ingestor)
    (vault / "Project Atlas.md").unlink()
    await ingestor.delete("Project Atlas.md")
    assert pairs(await mentions(core)) == [("Notes.md", "deep/down/Project Atlas.md")]
    await assert_fresh(ingestor)


async def test_mentions_can_be_switched_off(core: Core, vault: Path) -> None:
    off = Ingestor(
        core.__class__(
            **{**core.__dict__, "settings": core.settings.model_copy(update={"mentions": False})}
        ),
        root=vault,
        vault="t",
        extract_enabled=False,
    )
    put(vault, "Marco Rossi.md", "# Marco\n")
    put(vault, "Journal.md", "Lunch with Marco Rossi.\n")
    await sync_vault(off)
    assert await mentions(core) == []


async def test_huge_names_do_not_break_the_note(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """Index keys have size limits; a giant alias or tag must not fail the note's write."""
    huge = "word " * 3000
    put(vault, "Big.md", f"---\naliases: ['{huge}']\ntags: ['{'t' * 9000}']\n---\n# Big\n\nBody.\n")
    put(vault, "Other.md", "Mentions big and Big again.\n")
    report = await sync_vault(ingestor)
    assert report.written == 2
    assert pairs(await mentions(core)) == [("Other.md", "Big.md")]
    await assert_fresh(ingestor)


async def test_one_mention_per_chunk_and_note_survives_the_reverse_pass(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """A note named twice in one chunk (alias first, stem later) keeps one fact, with the
    first name, when a rename elsewhere rewrites the mentions of its stem."""
    put(vault, "Eve.md", "---\naliases: [Bobby]\n---\n")
    put(vault, "Dave.md", "# Dave\n")
    put(vault, "team/Eve.md", "# The other Eve\n")
    put(vault, "Log.md", "Bobby met.\n\nEve said so.\n\nDave too.\n")
    await sync_vault(ingestor)
    (vault / "team/Eve.md").parent.joinpath("../archive").resolve().mkdir(exist_ok=True)
    (vault / "team/Eve.md").rename(vault / "archive/Dave.md")
    await ingestor.rename("team/Eve.md", "archive/Dave.md")
    rows = [r for r in await mentions(core) if r["source"] == "Log.md"]
    assert [(r["target"], r["key"], r["line"]) for r in rows] == [
        ("Dave.md", "dave", 5),
        ("Eve.md", "bobby", 1),
    ]
    await assert_fresh(ingestor)


async def test_a_note_named_by_a_stop_word_is_linked_but_never_mentioned(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    put(vault, "Tra.md", "")  # Italian "between": an empty note a vault had kept
    put(vault, "Calcolo.md", "# Calcolo\n\nLa distanza tra due punti, vedi [[Tra]].\n")
    await sync_vault(ingestor)
    assert await mentions(core) == []
    links = await ad_hoc(
        core,
        "MATCH (:Note {path: 'Calcolo.md'})-[r {extractor: 'wikilink'}]->(t:Note) "
        "RETURN t.path AS path",
        {},
        write=False,
    )
    assert links == [{"path": "Tra.md"}]
    await assert_fresh(ingestor)


async def test_code_split_over_chunks_never_mentions_from_either_end(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    code = "\n".join(f"call_marco_rossi({i})  # Marco Rossi" for i in range(80))
    put(vault, "Code.md", f"# Code\n\n```python\n{code}\n```\n\nAsk Marco Rossi.\n")
    await sync_vault(ingestor)
    chunks = await ad_hoc(
        core, "MATCH (c:Chunk {note_path: 'Code.md'}) RETURN c.fence AS fence", {}, write=False
    )
    assert sum(r["fence"] == "```" for r in chunks) >= 2  # the code outgrew a chunk
    put(vault, "People/Marco Rossi.md", "# Marco\nAn engineer.\n")
    await ingestor.upsert_path("People/Marco Rossi.md")  # the reverse pass reads Code.md
    rows = await mentions(core)
    assert [(r["source"], r["line"]) for r in rows] == [("Code.md", 86)]  # the prose only
    await assert_fresh(ingestor)


async def test_the_reverse_pass_finds_names_across_punctuation_case_and_accents(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """The word index splits a chunk's case-folded words on spaces only, so a name's words in a
    row are found whatever punctuation, case or accents the text wrote them with, and a name
    whose words are apart is not."""
    put(vault, "A.md", "We ship on NODE.JS and lunch with (Marco Rossi's team).\n")
    put(vault, "B.md", "Coffee at CAFÉ MÜLLER, then node and js apart.\n")
    put(vault, "C.md", "Marco met Rossi; no mention here.\n")
    await sync_vault(ingestor)
    assert await mentions(core) == []
    for name in ("Node.js.md", "Marco Rossi.md", "Café Müller.md"):
        put(vault, name, "# Named later\n")
        await ingestor.upsert_path(name)  # each found by the reverse pass alone
    assert pairs(await mentions(core)) == [
        ("A.md", "Marco Rossi.md"),
        ("A.md", "Node.js.md"),
        ("B.md", "Café Müller.md"),
    ]
    await assert_fresh(ingestor)
    (vault / "Node.js.md").unlink()
    await ingestor.delete("Node.js.md")
    assert pairs(await mentions(core)) == [("A.md", "Marco Rossi.md"), ("B.md", "Café Müller.md")]
    await assert_fresh(ingestor)


async def _numeric_ids(core: Core, query: str) -> set[int]:
    """The store ids (the last part of ``elementId``) of the ``eid`` column's entities."""
    rows = await ad_hoc(core, query, {}, write=False)
    return {int(row["eid"].rsplit(":", 1)[1]) for row in rows}


async def test_the_reverse_pass_finds_a_chunk_whose_id_a_moved_link_had(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """Within a transaction, Neo4j 5 leaves out of a full-text query every committed node whose
    id is that of a relationship the transaction deleted (nodes and relationships count their
    ids apart, so the two meet). The note that names Zed moves the links to it, deleting them,
    in the same transaction as the reverse pass: a note mentioning Zed whose chunk has the id
    of one of those links must still be found. Notes are added until such a pair exists."""
    links = "".join(f"Link {i} goes to [[Zed]].\n\n" for i in range(60))
    shared: set[int] = set()
    for batch in range(20):  # how soon the ids meet depends on what earlier tests freed
        put(vault, f"Links {batch}.md", links)
        for i in range(60):
            put(vault, f"Met/{batch}-{i}.md", f"Zed came by, visit {batch}-{i}.\n")
        await sync_vault(ingestor)
        moved = await _numeric_ids(
            core,
            "MATCH (:Note {vault: 't'})-[r]->(:Unresolved {vault: 't', key: 'zed'}) "
            "RETURN elementId(r) AS eid",
        )
        chunks = await _numeric_ids(
            core,
            "MATCH (c:Chunk {vault: 't'}) WHERE c.note_path STARTS WITH 'Met/' "
            "RETURN elementId(c) AS eid",
        )
        if shared := moved & chunks:
            break
    assert shared, "no chunk of a mentioning note has the id of a link to Zed: nothing to check"
    put(vault, "Zed.md", "# Zed\n")
    await ingestor.upsert_path("Zed.md")
    mentioning = {r["source"] for r in await mentions(core) if r["target"] == "Zed.md"}
    written = {p.relative_to(vault).as_posix() for p in (vault / "Met").iterdir()}
    assert mentioning == written
    [zed] = await ad_hoc(
        core, "MATCH (n:Note {vault: 't', path: 'Zed.md'}) RETURN n.mentioned_by AS n", {}
    )
    assert zed["n"] == len(written)
    await assert_fresh(ingestor)


async def test_an_alias_added_asks_about_that_alias_only_and_keeps_every_mention_right(
    core: Core, vault: Path, ingestor: Ingestor, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Which note a name names depends on the name and the bearers' paths: a note that stays
    where it is and gains an alias changes the mentions of that alias only, so the notes that
    write its other names are neither searched for nor rewritten — and all stay right."""
    put(vault, "Launchpad.md", "# Launchpad\n\nThe project.\n")
    for i in range(3):
        put(vault, f"Day {i}.md", f"Worked on the launchpad, day {i}.\n")
    put(vault, "Memo.md", "The LPX build failed.\n")
    await sync_vault(ingestor)
    asked: list[list[str]] = []
    candidates = write_module.mentions.text_candidates

    async def spy(tx: Any, vault_name: str, keys: list[str], names: Any) -> Any:
        asked.append(list(keys))
        return await candidates(tx, vault_name, keys, names)

    monkeypatch.setattr(write_module.mentions, "text_candidates", spy)
    put(vault, "Launchpad.md", "---\naliases: [LPX]\n---\n# Launchpad\n\nThe project.\n")
    await ingestor.upsert_path("Launchpad.md")
    assert asked == [["lpx"]]
    expected = [(f"Day {i}.md", "Launchpad.md") for i in range(3)] + [("Memo.md", "Launchpad.md")]
    assert pairs(await mentions(core)) == expected
    await assert_fresh(ingestor)


async def test_a_note_mentioning_one_note_from_two_chunks_counts_once(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """Note.mentioned_by is kept by what each write changes (a popular note is not counted
    again on every edit of a note that mentions it): a note is one mentioner however many of
    its chunks name the note, through writes, edits, a mention dropped and a delete."""

    async def kept() -> int:
        [row] = await ad_hoc(
            core,
            "MATCH (n:Note {vault: 't', path: 'Marco Rossi.md'}) "
            "RETURN n.mentioned_by AS kept, COUNT { MATCH (x:Note)-[r:MENTIONS]->(n) "
            "WHERE r.extractor = 'mention' RETURN DISTINCT x } AS counted",
            {},
        )
        assert row["kept"] == row["counted"]
        return int(row["kept"])

    filler = "Plain words about the weather and the garden. " * 40
    put(vault, "Marco Rossi.md", "# Marco Rossi\n")
    twice = f"# A\n\nLunch with Marco Rossi.\n\n## Later\n\n{filler}\n\nMarco Rossi again.\n"
    put(vault, "A.md", twice)
    put(vault, "B.md", "# B\n\nCall Marco Rossi.\n")
    await sync_vault(ingestor)
    chunks = {r["chunk_id"] for r in await mentions(core) if r["source"] == "A.md"}
    assert len(chunks) == 2  # the case under test: one note, two chunks naming the note
    assert await kept() == 2
    # A graph written before the count was kept has none: the next write counts it whole.
    await ad_hoc(
        core,
        "MATCH (n:Note {vault: 't', path: 'Marco Rossi.md'}) REMOVE n.mentioned_by",
        {},
        write=True,
    )
    put(vault, "A.md", twice + "\nAnd once more, Marco Rossi.\n")
    await ingestor.upsert_path("A.md")
    assert await kept() == 2
    put(vault, "B.md", "# B\n\nCall nobody.\n")
    await ingestor.upsert_path("B.md")
    assert await kept() == 1
    (vault / "A.md").unlink()
    await ingestor.delete("A.md")
    assert await kept() == 0
    put(vault, "B.md", "# B\n\nCall Marco Rossi, twice: Marco Rossi.\n")
    await sync_vault(ingestor)
    assert await kept() == 1
    await assert_fresh(ingestor)


async def test_a_chinese_name_inside_a_run_of_characters_is_found_from_either_end(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """Chinese runs its words together: "北京" inside "我在北京大学工作" is a mention, found
    forward when the mentioning note is written and backward (through the stored words) when
    the named note appears; and gone with the text."""
    put(vault, "日记.md", "# 日记\n\n今天我在北京大学工作。\n")
    put(vault, "北京.md", "# 北京\n\n中国的首都。\n")
    await sync_vault(ingestor)
    assert pairs(await mentions(core)) == [("日记.md", "北京.md")]
    put(vault, "大学.md", "# 大学\n\n高等教育。\n")
    await ingestor.upsert_path("大学.md")  # the reverse pass finds the diary
    rows = await mentions(core)
    assert pairs(rows) == [("日记.md", "北京.md"), ("日记.md", "大学.md")]
    assert {r["key"] for r in rows} == {"北 京", "大 学"} and {r["line"] for r in rows} == {3}
    put(vault, "日记.md", "# 日记\n\n今天我在家。\n")
    await ingestor.upsert_path("日记.md")
    assert await mentions(core) == []
    await assert_fresh(ingestor)


async def test_a_thai_name_inside_a_run_of_letters_is_found_from_either_end(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """Thai runs its words together and hangs marks on its letters: "เชียงใหม่" inside
    "เมื่อวานฉันไปเชียงใหม่กับเพื่อน" is a mention, found forward when the mentioning note is
    written and backward (through the stored words) when the named note appears."""
    put(vault, "บันทึก.md", "# บันทึก\n\nเมื่อวานฉันไปเชียงใหม่กับเพื่อน\n")
    put(vault, "เชียงใหม่.md", "# เชียงใหม่\n\nเมืองทางภาคเหนือ\n")
    await sync_vault(ingestor)
    assert pairs(await mentions(core)) == [("บันทึก.md", "เชียงใหม่.md")]
    put(vault, "เพื่อน.md", "# เพื่อน\n\nคนที่เรารัก\n")
    await ingestor.upsert_path("เพื่อน.md")  # the reverse pass finds the diary
    assert sorted(pairs(await mentions(core))) == [
        ("บันทึก.md", "เชียงใหม่.md"),
        ("บันทึก.md", "เพื่อน.md"),
    ]
    put(vault, "บันทึก.md", "# บันทึก\n\nวันนี้อยู่บ้าน\n")
    await ingestor.upsert_path("บันทึก.md")
    assert await mentions(core) == []
    await assert_fresh(ingestor)


async def test_a_name_only_overlapping_the_tail_of_another_is_no_mention(
    core: Core, vault: Path, ingestor: Ingestor
) -> None:
    """ "東京都庁" (the Tokyo Metropolitan Government building) mentions 東京; 京都 (Kyoto) is
    only the tail of 東京 run into 都, so it is no mention, from either end."""
    put(vault, "京都.md", "# 京都\n\n古い都。\n")
    put(vault, "都庁.md", "# 都庁\n\n東京都庁に行った。展望台が無料。\n")
    await sync_vault(ingestor)
    assert pairs(await mentions(core)) == [("都庁.md", "京都.md")]  # nothing overlaps it yet
    put(vault, "東京.md", "# 東京\n\n日本の首都。\n")
    await ingestor.upsert_path("東京.md")  # the reverse pass rewrites 都庁.md's mentions
    rows = await mentions(core)
    assert pairs(rows) == [("都庁.md", "東京.md")] and rows[0]["key"] == "東 京"
    put(vault, "都庁.md", "# 都庁\n\n東京都庁に行った。京都にも。\n")
    await ingestor.upsert_path("都庁.md")  # written apart, both count
    assert pairs(await mentions(core)) == [("都庁.md", "京都.md"), ("都庁.md", "東京.md")]
    await assert_fresh(ingestor)
