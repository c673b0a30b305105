"""verify's differences note by note, in words: a note is said once, whatever of it differs
(its fields, its chunks, its facts), a path holding "|" included, and a fact that only moved
in its note is told from one added or removed."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from knotwork.check.differences import Side, note_differences
from knotwork.check.verify import _Read
from knotwork.check.verify import _side as _side_of
from knotwork.graph.queries.admin import (
    DumpChunkFieldsRow,
    DumpFactsRow,
    DumpLineRow,
    DumpNoteFieldsRow,
)


def _note(path: str, content: str = "h", mentioned_by: int = 0) -> DumpNoteFieldsRow:
    return DumpNoteFieldsRow(
        path=path, title=path, stem=path, lpath=path.lower(), content_hash=content,
        aliases=[], tags=[], dates=[], frontmatter_error=None, mentioned_by=mentioned_by,
    )  # fmt: skip


def _chunk(path: str, ord: int, text: str, lines: tuple[int, int]) -> DumpChunkFieldsRow:
    return DumpChunkFieldsRow(
        path=path, ord=ord, heading_path=path, line_start=lines[0], line_end=lines[1],
        hash=text, embedding_state="done", extraction_state="done", next=[], entities=[],
        language="en", labels=["English"],
    )  # fmt: skip


def _side(
    notes: Sequence[DumpNoteFieldsRow],
    chunks: Sequence[DumpChunkFieldsRow] = (),
    facts: Iterable[str] = (),
    unresolved: Iterable[str] = (),
) -> Side:
    """A side as verify builds it from the dump queries' rows."""
    return _side_of(
        _Read(
            notes=list(notes),
            chunks=list(chunks),
            facts=[DumpFactsRow(line=f, extractor="wikilink") for f in facts],
            nodes=[DumpLineRow(line=u) for u in unresolved],
        )
    )


def _fact(source: str, relation: str, target: str, line: int) -> str:
    """A structural fact's canonical line (cypher/dump_facts.cypher)."""
    return f"{source}|{relation}|note:{source}|{target}|wikilink|{line}||{source}#0|x|1.0|||"


def test_an_edited_note_is_one_changed_note_with_its_chunk_and_fact() -> None:
    path = "a|b/cache.md"  # a bar in a path splits no line apart
    fresh = _side(
        [_note(path, "new"), _note("bus.md", mentioned_by=1)],
        [_chunk(path, 0, "t2", (1, 5))],
        {_fact(path, "SEE_ALSO", "note:bus.md", 5)},
    )
    graph = _side([_note(path, "old"), _note("bus.md")], [_chunk(path, 0, "t1", (1, 3))])
    notes, links = note_differences(fresh, graph, [])
    assert [str(n) for n in notes] == [
        "changed: a|b/cache.md (text; 1 chunk (lines, text); facts: +1 SEE_ALSO → bus.md)",
        "changed: bus.md (mentioned by 1 note, the graph says 0)",
    ]
    assert links == []


def test_a_fact_on_another_line_is_said_moved_not_added_and_removed() -> None:
    """A line inserted above a link moves its fact: one fact, not one new and one gone."""
    notes = [_note("Ann.md")]
    fresh = _side(notes, facts={_fact("Ann.md", "LINKS_TO", "note:Ben.md", 4)})
    graph = _side(
        notes,
        facts={
            _fact("Ann.md", "LINKS_TO", "note:Ben.md", 3),
            _fact("Ann.md", "LINKS_TO", "unresolved:cy", 5),
        },
    )
    [ann], _ = note_differences(fresh, graph, [])
    assert str(ann) == "changed: Ann.md (facts: ~1 LINKS_TO → Ben.md, -1 LINKS_TO → [[cy]])"


def test_notes_on_one_side_only_and_the_unresolved_links() -> None:
    fresh = _side([_note("new.md")], unresolved={"unresolved:nobody|Nobody", "unresolved:cy|Cy"})
    graph = _side(
        [_note("gone.md"), _note("bad.md")],
        unresolved={"unresolved:ben|Ben", "unresolved:cy|cy"},
    )
    notes, links = note_differences(fresh, graph, {"bad.md"})  # SyncReport.kept
    assert [str(n) for n in notes] == [
        "in the graph, unreadable in the folder: bad.md",
        "in the graph but not in the folder: gone.md",
        "not in the graph: new.md",
    ]
    assert [str(n) for n in links] == [
        "in the graph only: unresolved link [[Ben]] (no note makes it now)",
        "changed: unresolved link [[Cy]] (named 'cy' in the graph)",
        "not in the graph: unresolved link [[Nobody]]",
    ]


def test_nothing_differs_nothing_is_said() -> None:
    side = _side(
        [_note("Ann.md")],
        [_chunk("Ann.md", 0, "t", (1, 2))],
        {_fact("Ann.md", "LINKS_TO", "note:Ben.md", 2)},
        {"unresolved:x|X"},
    )
    assert note_differences(side, side, []) == ([], [])
