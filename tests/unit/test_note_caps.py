"""Per-note caps: a note past the cap of tags, aliases, links, frontmatter values or mentions
keeps the first in its text, says so in its draft's warnings, and the rest of it is written."""

from __future__ import annotations

import re

from knotwork.graph.names import NameIndex
from knotwork.ingest.caps import (
    MAX_NOTE_ALIASES,
    MAX_NOTE_LINKS,
    MAX_NOTE_MENTIONS,
    MAX_NOTE_PROPERTIES,
    MAX_NOTE_TAGS,
)
from knotwork.ingest.draft import Draft, draft, note_write
from knotwork.ingest.mentions import mention_rows, note_mentions
from knotwork.ingest.parse import parse_note


def _draft(path: str, text: str) -> Draft:
    return draft("v", parse_note(path, text), None, 1200, None, None, None)


def test_tags_past_the_cap_keep_the_first_and_say_where_the_rest_begins() -> None:
    # Two frontmatter tags, then one tag a line: line 5 holds #t0.
    body = "\n".join(f"#t{i}" for i in range(MAX_NOTE_TAGS + 5))
    made = _draft("dos/tags.md", f"---\ntags: [fm1, fm2]\n---\n# Tags\n{body}\n")
    tags = [f.object for f in made.facts if f.relation == "HAS_TAG"]
    assert tags == ["#fm1", "#fm2", *(f"#t{i}" for i in range(MAX_NOTE_TAGS - 2))]
    assert made.note.tags == [t.removeprefix("#") for t in tags]
    first_out = MAX_NOTE_TAGS - 2  # #t998, on line 5 + 998
    assert made.warnings == [
        f"dos/tags.md: {MAX_NOTE_TAGS + 7:,} tags, more than the {MAX_NOTE_TAGS:,} a note may "
        f"hold: ignored from #t{first_out} at line {5 + first_out} on"
    ]
    assert made.chunks  # the text itself is written whole
    assert f"#t{MAX_NOTE_TAGS + 4}" in made.chunks[-1].text


def test_links_past_the_cap_keep_the_first_frontmatter_ones_included() -> None:
    body = " ".join(f"[[n{i}]]" for i in range(MAX_NOTE_LINKS + 10))
    made = _draft("moc.md", f'---\nup: "[[Home]]"\n---\n{body}\n[[Last]]\n')
    targets = [f.object for f in made.facts if f.extractor in ("wikilink", "frontmatter")]
    assert len(targets) == MAX_NOTE_LINKS
    assert targets[0] == "Home" and targets[-1] == f"n{MAX_NOTE_LINKS - 2}"
    assert "Last" not in targets
    assert made.warnings == [
        f"moc.md: {MAX_NOTE_LINKS + 12:,} links, more than the {MAX_NOTE_LINKS:,} a note may "
        "hold: ignored from the link at line 4 on"
    ]


def test_aliases_past_the_cap_keep_the_first() -> None:
    aliases = ", ".join(f"a{i}" for i in range(MAX_NOTE_ALIASES + 1))
    made = _draft("N.md", f"---\naliases: [{aliases}]\n---\nBody\n")
    kept = [f.object for f in made.facts if f.relation == "HAS_ALIAS"]
    assert kept == [f"a{i}" for i in range(MAX_NOTE_ALIASES)]
    assert f"a{MAX_NOTE_ALIASES}" not in made.props["mkeys"]  # nor a name it is mentioned by
    assert made.warnings == [
        f"N.md: {MAX_NOTE_ALIASES + 1:,} aliases, more than the {MAX_NOTE_ALIASES:,} a note "
        f"may hold: ignored from alias 'a{MAX_NOTE_ALIASES}' on"
    ]


def test_frontmatter_values_past_the_cap_keep_the_first() -> None:
    values = "\n".join(f"k{i}: v{i}" for i in range(MAX_NOTE_PROPERTIES + 3))
    made = _draft("P.md", f"---\n{values}\n---\nBody\n")
    kept = [f.object for f in made.facts if f.relation == "HAS_PROPERTY"]
    assert kept == [f"v{i}" for i in range(MAX_NOTE_PROPERTIES)]
    assert made.warnings == [
        f"P.md: {MAX_NOTE_PROPERTIES + 3:,} frontmatter values, more than the "
        f"{MAX_NOTE_PROPERTIES:,} a note may hold: ignored from 'k{MAX_NOTE_PROPERTIES}' at "
        f"line {MAX_NOTE_PROPERTIES + 2} on"
    ]


def test_at_the_caps_a_note_is_whole_and_says_nothing() -> None:
    tags = " ".join(f"#t{i}" for i in range(MAX_NOTE_TAGS))
    links = " ".join(f"[[n{i}]]" for i in range(MAX_NOTE_LINKS))
    made = _draft("full.md", f"{tags}\n{links}\n")
    assert made.warnings == []
    assert sum(f.relation == "HAS_TAG" for f in made.facts) == MAX_NOTE_TAGS
    assert sum(f.extractor == "wikilink" for f in made.facts) == MAX_NOTE_LINKS


def _names(count: int) -> NameIndex:
    return NameIndex.from_rows(
        [{"path": f"P{i}.md", "lpath": f"p{i}", "mkeys": [f"person{i}"]} for i in range(count)]
    )


def test_mentions_past_the_cap_keep_the_first_in_the_text() -> None:
    """Every chunk names the same 100 notes: one fact per (chunk, note), the first chunks'."""
    names, per_chunk = _names(100), MAX_NOTE_MENTIONS // 100 + 2
    text = " ".join(f"person{i}" for i in range(100))
    chunks = [
        {"id": f"c{n}", "text": text, "line_map": [n + 1], "fence": ""} for n in range(per_chunk)
    ]
    rows, said = note_mentions("me.md", chunks, names)
    assert len(rows) == MAX_NOTE_MENTIONS
    assert {r["props"]["chunk_id"] for r in rows} == {f"c{n}" for n in range(per_chunk - 2)}
    assert said == (
        f"{100 * per_chunk:,} unlinked mentions, more than the {MAX_NOTE_MENTIONS:,} a note "
        f"may hold: ignored from the mention at line {per_chunk - 1} on"
    )
    # The reverse pass, which rewrites other notes' mentions, keeps the same ones.
    assert mention_rows("me.md", chunks, names)[0] == rows
    assert note_mentions("me.md", chunks[:1], names)[1] is None


def test_the_writer_s_rows_carry_the_mentions_warning() -> None:
    """Said by ``note_write`` (the names are known only then); resolve adds it to the note's
    outcome, as the draft's warnings are."""
    line = " ".join(f"person{i}" for i in range(100))
    text = "\n\n".join(f"## S{n}\n{line}" for n in range(MAX_NOTE_MENTIONS // 100 + 1))
    made = _draft("me.md", text)
    write = note_write(made, "m", "llm", False, _names(100))
    assert len(write.mention_facts) == MAX_NOTE_MENTIONS
    [said] = write.warnings
    assert re.fullmatch(
        rf"me\.md: [\d,]+ unlinked mentions, more than the {MAX_NOTE_MENTIONS:,} a note may "
        r"hold: ignored from the mention at line \d+ on",
        said,
    )
    assert note_write(made, "m", "llm", False, None).warnings == []
