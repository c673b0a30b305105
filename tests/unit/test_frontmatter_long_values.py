"""A frontmatter value too long to name an entity is left out with a warning, not silently."""

from __future__ import annotations

from knotwork.ingest.draft import draft
from knotwork.ingest.facts import MAX_VALUE_CHARS
from knotwork.ingest.parse import parse_note

LONG = "word " * 60  # 300 characters: a paragraph, not a property


def test_a_long_value_is_said_naming_note_key_and_line_and_the_rest_is_kept() -> None:
    text = f"---\nrole: engineer\nsummary: {LONG}\nstatus: active\n---\n# N\n[[Bob]]\n"
    made = draft("v", parse_note("People/N.md", text), None, 1200, None, None, None)
    assert made.warnings == [
        f"People/N.md:3: frontmatter value of 'summary' longer than {MAX_VALUE_CHARS} "
        "characters ignored"
    ]
    kept = {(f.relation, f.object, f.line) for f in made.facts}
    assert kept == {
        ("HAS_ROLE", "engineer", 2),
        ("HAS_STATUS", "active", 4),
        ("LINKS_TO", "Bob", 7),
    }


def test_a_value_at_the_limit_and_a_long_link_value_are_no_warning() -> None:
    """200 characters still name an entity; a long value holding a link is a link fact."""
    at_limit = "x" * MAX_VALUE_CHARS
    text = f"---\nnote: {at_limit}\nsee: '{LONG} [[Bob]]'\n---\nBody\n"
    made = draft("v", parse_note("N.md", text), None, 1200, None, None, None)
    assert made.warnings == []
    assert {(f.relation, f.object) for f in made.facts} == {
        ("HAS_PROPERTY", at_limit),
        ("LINKS_TO", "Bob"),
    }
