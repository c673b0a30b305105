"""The rule a sync and the watcher pair a gone note with a new one by (ingest/move_pairs.py):
by content first; then, left on both sides, by a file name unique on each side and a text
keeping at least half of the gone note's chunks or, failing that, most of its words."""

from __future__ import annotations

import unicodedata

from knotwork.ingest.chunk import chunk_note
from knotwork.ingest.move_pairs import (
    ALIKE,
    SIMILAR,
    alike,
    by_content,
    file_name,
    name_pairs,
    similar,
)
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


def test_a_one_chunk_note_edited_is_alike() -> None:
    """A date line changed, a word added: most words kept, though no chunk is."""
    before = "# Standup\n\nDate: 2024-01-05\n\nWe discussed the release and the migration plan."
    after = before.replace("2024-01-05", "2024-02-11").replace("release", "spring release")
    assert ALIKE == 0.6
    # 6 of 7 words: "we", "the", "and" and the date's numbers not counted
    assert alike([before], [after]) == 6 / 7
    assert alike(["# Todo\n\nBuy milk."], ["# Todo\n\nBuy oat milk."]) == 0.75


def test_a_typo_fixed_in_every_section_is_alike() -> None:
    before = [
        "# Lake\n\nNotes on the lake and its herosn.",
        "## Birds\n\nHerons nest on the north shroe every spring.",
        "## Water\n\nThe water is cold and claer until July.",
    ]
    after = [t.replace("herosn", "herons").replace("shroe", "shore") for t in before]
    after[2] = after[2].replace("claer", "clear")
    assert alike(before, after) >= ALIKE


def test_words_compare_case_folded_and_in_scripts_without_spaces() -> None:
    assert alike(["Heron NEST"], ["heron nest"]) == 1.0
    # Each two Han or kana characters in a row a term: one of ten changed keeps 7 of 9.
    assert alike(["東京は大きい都市です"], ["東京は大きな都市です"]) == 7 / 9


def test_different_notes_in_a_script_without_spaces_are_not_alike() -> None:
    """Two diary entries under one title share most common characters, not their pairs."""
    park = "# 日记\n\n今天我和朋友去了公园\uff0c天气很好\uff0c我们在湖边散步\uff0c看到了很多鸟。"
    office = "# 日记\n\n今天在公司开了一个很长的会\uff0c讨论了明年的预算和新的项目计划。"
    assert alike([park], [office]) < 0.2


def test_two_notes_of_one_template_are_not_alike() -> None:
    """The template's labels and its dates' numbers are not the note."""
    one = "# Meeting\n\nDate: 2024-03-01\nAttendees: Anna, Marco\nAgenda: budget\nNotes: travel."
    two = "# Meeting\n\nDate: 2024-03-08\nAttendees: Luca, Sara\nAgenda: hiring\nNotes: hires."
    assert alike([one], [two]) < ALIKE


def test_a_note_contained_in_a_longer_one_is_not_alike() -> None:
    """Measured both ways: every word of the short note in the long one is not enough."""
    short = "# Lake\n\nHerons nest here."
    longer = short + "\n\n" + " ".join(f"word{i}" for i in range(40))
    assert alike([short], [longer]) < ALIKE
    assert alike([longer], [short]) < ALIKE


def test_different_notes_of_one_language_are_not_alike() -> None:
    """Short notes under one title: their function words, uncounted, would make them half alike."""
    lake = "# Lake\n\nThe lake is cold and the herons nest on the north shore of it."
    budget = "# Lake\n\nThe budget for the trip is due on the first of the month and it is tight."
    assert alike([lake], [budget]) < 0.2  # "lake" alone of seven words


def test_notes_without_words_are_not_alike() -> None:
    assert alike([], []) == 0.0
    assert alike([""], ["# Lake"]) == 0.0
    assert alike(["..."], ["..."]) == 0.0


def test_content_pairs_each_gone_note_once() -> None:
    gone = {"a.md": "h1", "b.md": "h1", "c.md": None}
    assert by_content(gone, {"x/a.md": "h1", "x/b.md": "h1", "x/c.md": "h2"}) == {
        "x/a.md": "a.md",
        "x/b.md": "b.md",
    }
