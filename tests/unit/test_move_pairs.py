"""The rule a sync and the watcher pair a gone note with a new one by (ingest/move_pairs.py):
by content first; then, left on both sides, by a file name unique on each side and a text
keeping at least half of the gone note's chunks."""

from __future__ import annotations

import unicodedata

from knotwork.ingest.chunk import chunk_note
from knotwork.ingest.move_pairs import SIMILAR, by_content, file_name, name_pairs, similar
from knotwork.ingest.parse import parse_note


def test_a_name_unique_on_both_sides_pairs() -> None:
    assert name_pairs(["lake.md", "pond.md"], ["water/lake.md", "notes.md"]) == {
        "water/lake.md": "lake.md"
    }


def test_a_name_two_gone_notes_bear_pairs_none() -> None:
    assert name_pairs(["a/lake.md", "b/lake.md"], ["c/lake.md"]) == {}


def test_a_name_two_new_notes_bear_pairs_none() -> None:
    assert name_pairs(["lake.md"], ["a/lake.md", "b/lake.md"]) == {}


def test_names_compare_as_the_vault_compares_them() -> None:
    """Composed or not, in any letter case: one name (a macOS disk decomposes it)."""
    decomposed = unicodedata.normalize("NFD", "Café.md")
    assert file_name(f"x/{decomposed}") == file_name("CAFÉ.MD") == "café.md"
    assert name_pairs([decomposed], ["archive/café.md"]) == {"archive/café.md": decomposed}
    assert name_pairs(["Lake.md"], ["water/LAKE.md"]) == {"water/LAKE.md": "Lake.md"}
    # Two spellings of one name among the gone notes are two notes of that name: none paired.
    assert name_pairs(["a/Lake.md", "b/lake.md"], ["c/lake.md"]) == {}


def test_a_text_keeping_half_the_chunks_is_similar() -> None:
    assert SIMILAR == 0.5
    assert similar(["a", "b"], {"a", "x"})
    assert similar(["a", "b", "c"], {"a", "b", "z"})
    assert not similar(["a", "b", "c"], {"a", "y", "z"})
    assert not similar(["a"], {"b"})  # a one-chunk note rewritten
    assert not similar([], {"a"})  # a gone note of no chunks is like none


def test_an_edited_section_keeps_the_other_chunks_hashes() -> None:
    """What ``similar`` compares: chunk hashes (heading path + text), whatever the path."""
    text = "# Lake\n\nHerons.\n\n## Birds\n\nNests.\n\n## Water\n\nCold.\n"
    before = chunk_note(parse_note("lake.md", text), "v", 1200)
    after = chunk_note(parse_note("w/lake.md", text.replace("Cold", "Warm")), "v", 1200)
    assert len(before) == 3
    assert similar([c.hash for c in before], {c.hash for c in after})


def test_content_pairs_each_gone_note_once() -> None:
    gone = {"a.md": "h1", "b.md": "h1", "c.md": None}
    assert by_content(gone, {"x/a.md": "h1", "x/b.md": "h1", "x/c.md": "h2"}) == {
        "x/a.md": "a.md",
        "x/b.md": "b.md",
    }
