"""A frontmatter value of the wrong type for the key that names the note (title, aliases, tags),
an impossible date under a date key, or a key written twice is said in a warning naming the key
and its line, never dropped or mangled silently; the rest of the note is kept."""

from __future__ import annotations

from knotwork.ingest.draft import draft
from knotwork.ingest.parse import parse_note


def _warned(text: str, path: str = "N.md") -> list[str]:
    return draft("v", parse_note(path, text), None, 1200, None, None, None).warnings


def test_a_title_that_is_no_text_is_said_and_the_file_name_stands() -> None:
    note = parse_note("Book.md", "---\ntitle: [a, b, c]\nrole: dev\n---\nx")
    assert note.title == "Book"
    assert note.warnings == [
        'frontmatter \'title\' at line 2 is a list (["a", "b", "c"]), not a text: the file '
        "name is the title"
    ]
    said = parse_note("B.md", "---\ntitle: {x: 1}\n---\n").warnings
    assert said[0].startswith("frontmatter 'title' at line 2 is a mapping ({\"x\": 1})"), said
    for quiet in ("title:", "title: ''", "title: 1984", "title: Fine"):
        assert parse_note("B.md", f"---\n{quiet}\n---\n").warnings == [], quiet


def test_aliases_that_are_no_texts_are_said_item_by_item() -> None:
    note = parse_note("N.md", "---\naliases: {x: 1}\n---\n")
    assert note.aliases == []
    assert note.warnings == [
        "frontmatter 'aliases' at line 2 is a mapping ({\"x\": 1}), not an alias: ignored"
    ]
    note = parse_note("N.md", '---\nid: 7\naliases: ["", null, [y], {z: 1}, Ok, true]\n---\n')
    assert note.aliases == ["Ok"]
    assert note.warnings == [
        "frontmatter 'aliases' at line 3: 2 empty items ignored",
        "frontmatter 'aliases' at line 3: [\"y\"] is a list, not an alias: ignored",
        "frontmatter 'aliases' at line 3: {\"z\": 1} is a mapping, not an alias: ignored",
        "frontmatter 'aliases' at line 3: true is a yes/no value, not an alias: ignored",
    ]


def test_tags_that_are_no_texts_are_said_and_a_space_splits_a_tag() -> None:
    """`tags: true` was the tag #True; `"#a b"` one tag holding a space, which Obsidian's tags
    never hold (an inline `#a b` is the tag a): read as the tags a and b, as a string of tags
    is split, and said."""
    note = parse_note("N.md", '---\ntags: [x, null, [n], "#a b", "c,d", true]\n---\n#y\n')
    assert note.tags == ["x", "a", "b", "c", "d", "y"]
    assert note.warnings == [
        "frontmatter 'tags' at line 2: 1 empty item ignored",
        "frontmatter 'tags' at line 2: [\"n\"] is a list, not a tag: ignored",
        "frontmatter 'tags' at line 2: true is a yes/no value, not a tag: ignored",
        "frontmatter 'tags' at line 2: \"#a b\" holds a space or a comma, which no tag may: "
        "read as the tags a, b",
        "frontmatter 'tags' at line 2: \"c,d\" holds a space or a comma, which no tag may: "
        "read as the tags c, d",
    ]
    note = parse_note("N.md", "---\ntags: true\n---\n")
    assert note.tags == []
    assert note.warnings == [
        "frontmatter 'tags' at line 2: true is a yes/no value, not a tag: ignored"
    ]
    # A string of tags is split at commas and spaces as Obsidian splits it: nothing to say.
    assert parse_note("N.md", "---\ntags: 'a, b #c'\n---\n").warnings == []


def test_an_impossible_date_asserts_no_date_fact_and_is_said() -> None:
    text = "---\ndate: 2024-13-45\ndue: 2025-02-30\ncreated: 2025-02-28\nwhen: soon\n---\nx"
    made = draft("v", parse_note("N.md", text), None, 1200, None, None, None)
    assert made.warnings == [
        "N.md:2: frontmatter value '2024-13-45' of 'date' is no real date: no date fact, and "
        "it does not date the note",
        "N.md:3: frontmatter value '2025-02-30' of 'due' is no real date: no date fact, and "
        "it does not date the note",
    ]
    kept = {(f.relation, f.object, f.line) for f in made.facts}
    assert kept == {("HAS_DATE", "2025-02-28", 4), ("HAS_PROPERTY", "soon", 5)}
    assert made.note.dates == ["2025-02-28"]


def test_a_key_written_twice_is_a_warning_of_the_note_and_its_last_value_stands() -> None:
    text = "---\ntitle: First\nrole: dev\nrole: lead\ntitle: Second\n---\nBody [[A]]\n"
    made = draft("v", parse_note("N.md", text), None, 1200, None, None, None)
    assert made.note.title == "Second"
    assert made.warnings == [
        "N.md: frontmatter key 'title' written 2 times, at lines 2 and 5: the last (line 5) "
        "is kept, the others ignored; Obsidian refuses a repeated key",
        "N.md: frontmatter key 'role' written 2 times, at lines 3 and 4: the last (line 4) "
        "is kept, the others ignored; Obsidian refuses a repeated key",
    ]
    kept = {(f.relation, f.object, f.line) for f in made.facts}
    assert kept == {("HAS_ROLE", "lead", 4), ("LINKS_TO", "A", 7)}
