"""The citation check, without a database or a model: source numbers mapped back to the hits,
the old ``[path#heading]`` form, names holding ``[``, ``]`` and ``#``, and the streamed form."""

from __future__ import annotations

from dataclasses import replace

import pytest

from knotwork.answer.cite import check_citations, strip_citations
from knotwork.answer.cite_match import match_citation
from knotwork.answer.cite_stream import CitationStream
from tests.conftest import hit
from tests.unit.cite_streams import assert_streams_as_whole

HITS = [hit("People/Alice.md", "Alice > Work"), hit("Recipes.md", "Lasagna"), hit("Misc.md", "")]


@pytest.mark.parametrize(
    ("citation", "path"),
    [
        ("People/Alice.md#Alice > Work", "People/Alice.md"),
        ("people/alice.md#alice  >  work", "People/Alice.md"),
        ("People/Alice#Work", "People/Alice.md"),
        ("People/Alice.md", "People/Alice.md"),
        ("Misc.md", "Misc.md"),
        ("Recipes.md#Lasagna", "Recipes.md"),
        ("Recipes.md#Pizza", None),
        ("Nowhere.md#Fake", None),
    ],
)
def test_citations_match_a_hit_by_path_and_heading(citation: str, path: str | None) -> None:
    found = match_citation(citation, HITS)
    assert (found.path if found else None) == path


def test_an_old_form_citation_matches_in_either_unicode_form() -> None:
    """A file name from macOS is decomposed (NFD); a model copies it composed, or the reverse."""
    hits = [hit("Cafe\u0301.md", "Me\u0301nu"), hit("Na\u00efve.md", "")]
    assert match_citation("Caf\u00e9.md#M\u00e9nu", hits) is hits[0]
    assert match_citation("Nai\u0308ve.md", hits) is hits[1]


def test_an_old_form_citation_may_write_the_heading_as_the_note_does() -> None:
    """A chunk's heading is its anchor (``Latch SR timing``); a model copying the heading from
    the note's text (``Latch [[latch SR]]: timing``) names it too, and was dropped."""
    hits = [hit("Latch.md", "Latch > Latch latch SR timing")]
    assert match_citation("Latch.md#Latch > Latch [[latch SR]]: timing", hits) is hits[0]
    assert match_citation("Latch.md#Latch **latch SR** timing", hits) is hits[0]


def test_invalid_citations_are_removed_and_valid_ones_kept_in_order() -> None:
    text = (
        "Pasta [Recipes.md#Lasagna]. Alice [[People/Alice.md#Work]] works [Nowhere.md#Fake], "
        "see [the docs](https://example.org#x) and [Recipes.md#Lasagna] [Made.md]."
    )
    checked = check_citations(text, HITS)
    assert checked.text == (
        "Pasta [Recipes.md#Lasagna]. Alice [People/Alice.md#Alice > Work] works, "
        "see [the docs](https://example.org#x) and [Recipes.md#Lasagna]."
    )
    assert [h.path for h in checked.cited] == ["Recipes.md", "People/Alice.md"]
    assert checked.dropped == ["[Nowhere.md#Fake]", "[Made.md]"]


def test_brackets_that_are_not_citations_stay() -> None:
    checked = check_citations("A list [1] and [x] stay.", HITS)
    assert checked.text == "A list [1] and [x] stay." and not checked.dropped


def test_strip_citations_keeps_the_words() -> None:
    text = "Alice works with Bob [People/Alice.md#Alice], since 1999 [[Bob.md]]. See [1] and [x]."
    assert strip_citations(text) == "Alice works with Bob , since 1999 . See [1] and [x]."


# Notes whose names and headings hold the characters a bracketed citation is written with.
ODD = [
    hit("C# notes.md", "Intro", "C sharp basics"),
    hit("a [draft].md", "Step [1]", "first step"),
    hit("x]y.md", "Use #tags", "tags"),
    hit("Plain.md", "", "plain"),
]
SOURCES = {1: ODD[0], 2: ODD[1], 3: ODD[2], 4: ODD[3]}


def test_source_numbers_map_to_hits_whose_names_hold_brackets_and_hashes() -> None:
    text = "Basics [S1]. First [S2]. Tags [S3, S4]. Made up [S99]. Again [[S2]]."
    checked = check_citations(text, ODD, SOURCES)
    assert checked.text == (
        "Basics [C# notes.md#Intro]. First [a [draft].md#Step [1]]. "
        "Tags [x]y.md#Use #tags] [Plain.md]. Made up. Again [a [draft].md#Step [1]]."
    )
    assert checked.cited == [ODD[0], ODD[1], ODD[2], ODD[3]]
    assert checked.dropped == ["[S99]"]


def test_a_number_the_prompt_did_not_give_is_dropped_even_if_a_hit_has_it() -> None:
    # Hits left out of the context window have no number: citing one past the last is invented.
    checked = check_citations("Claim [S2] and [s1].", ODD, {1: ODD[0]})
    assert checked.text == "Claim and [C# notes.md#Intro]."
    assert checked.cited == [ODD[0]] and checked.dropped == ["[S2]"]


def test_the_old_form_is_kept_when_it_names_a_hit_and_dropped_when_invented() -> None:
    text = (
        "A [C# notes.md#Intro], B [a [draft].md#Step [1]], C [x]y.md#Use #tags], "
        "D [a [draft].md#Step [2]], E [C# notes.md#Outro], F [c# NOTES#intro]."
    )
    checked = check_citations(text, ODD, SOURCES)
    assert checked.text == (
        "A [C# notes.md#Intro], B [a [draft].md#Step [1]], C [x]y.md#Use #tags], D, E, "
        "F [C# notes.md#Intro]."
    )
    assert checked.cited == [ODD[0], ODD[1], ODD[2]]
    assert checked.dropped == ["[a [draft].md#Step [2]]", "[C# notes.md#Outro]"]


@pytest.mark.parametrize(
    "raw",
    [
        "Basics [S1]. First [S2] and [S1, S3]. Invented [S99]. Old [a [draft].md#Step [1]].",
        "Made up [Nowhere.md#Fake] then [S4]  [S7]\n\n[[S2]] a [link](http://x#y) [1] [x.",
        "  [S1] leading space, unclosed [S2 and a last one [S3]  \n",
    ],
)
def test_a_streamed_answer_renders_citations_split_anywhere_as_the_whole_does(raw: str) -> None:
    whole = check_citations(raw, ODD, SOURCES)
    cuts = [(i, j) for i in range(len(raw) + 1) for j in range(i, len(raw) + 1, 3)]
    for i, j in cuts:
        stream = CitationStream(ODD, SOURCES)
        pieces = [stream.feed(raw[:i]), stream.feed(raw[i:j]), stream.feed(raw[j:]), stream.close()]
        assert "".join(pieces) == whole.text, (i, j, pieces)
        assert (stream.checked.cited, stream.checked.dropped) == (whole.cited, whole.dropped)


def test_a_stream_holds_back_only_what_may_still_become_a_citation() -> None:
    stream = CitationStream(ODD, SOURCES)
    assert stream.feed("Basics [") == "Basics"
    assert stream.feed("S") == ""
    assert stream.feed("1] are") == " [C# notes.md#Intro] are"
    assert stream.feed(" covered [S9") == " covered"
    assert stream.feed("9].") == "."
    assert stream.close() == "" and stream.checked.dropped == ["[S99]"]


def test_strip_citations_finds_labels_that_hold_brackets() -> None:
    text = "First [a [draft].md#Step [1]], then C [C# notes.md#Intro] [Gone.md]. A list [1]."
    labels = ["[a [draft].md#Step [1]]", "[C# notes.md#Intro]"]
    assert strip_citations(text, labels) == "First , then C . A list [1]."


@pytest.mark.parametrize(
    "text",
    [
        "Alice works with [[Bob#Projects]] [S1].",
        "Use [C#] for this [S1].",
        "She fixed ticket [#4521] [S1].",
        "See [[Plans#2024]] and [#] [S1].",
    ],
)
def test_words_in_brackets_that_cite_nothing_stay(text: str) -> None:
    """A wikilink copied from a note, a language's name, a ticket number: words, not
    citations, so nothing is removed or reported."""
    checked = check_citations(text, ODD, SOURCES)
    assert checked.text == text.replace("[S1]", "[C# notes.md#Intro]")
    assert checked.cited == [ODD[0]] and checked.dropped == []


@pytest.mark.parametrize(
    ("text", "cited", "dropped"),
    [
        ("Alpha [S1-S3].", [0, 1, 2], []),
        ("Alpha [S1\u2013S3].", [0, 1, 2], []),
        ("Alpha [S2 to S4].", [1, 2, 3], []),
        ("Alpha [S1 and S2].", [0, 1], []),
        ("Alpha [S1 & S4].", [0, 3], []),
        ("Alpha [S1 S2].", [0, 1], []),
        ("Alpha [Source 2].", [1], []),
        ("Alpha [Sources 1, 4].", [0, 3], []),
        ("Alpha [S3-S9].", [2, 3], ["[S5]", "[S6]", "[S7]", "[S8]", "[S9]"]),
        ("Alpha [S1-S300].", [0], ["[S300]"]),
        # As a label names a source, or with the note a model added: the number is cited.
        ("Alpha [Source: S2].", [1], []),
        ("Alpha [S1: C# notes.md].", [0], []),
        ("Alpha [S2: a draft, step one].", [1], []),
        ("Alpha [^S3].", [2], []),
        ("Alpha [S4.]", [3], []),
        ("Alpha [S9: Secret/Plan.md].", [], ["[S9]"]),
    ],
)
def test_source_markers_as_models_write_them(
    text: str, cited: list[int], dropped: list[str]
) -> None:
    checked = check_citations(text, ODD, SOURCES)
    assert checked.cited == [ODD[i] for i in cited] and checked.dropped == dropped
    assert "[S" not in checked.text and "Source" not in checked.text
    streamed = CitationStream(ODD, SOURCES)
    pieces = [streamed.feed(char) for char in text] + [streamed.close()]
    assert "".join(pieces) == checked.text  # a character at a time, as a slow model sends


@pytest.mark.parametrize("raw", ["Alpha [S1-S3] and [Sources 2, 4]. [S1 and S", "[So [Sx] [S1 S"])
def test_a_streamed_answer_with_any_marker_form_equals_the_whole(raw: str) -> None:
    whole = check_citations(raw, ODD, SOURCES)
    for cut in range(len(raw) + 1):
        stream = CitationStream(ODD, SOURCES)
        pieces = [stream.feed(raw[:cut]), stream.feed(raw[cut:]), stream.close()]
        assert "".join(pieces) == whole.text, (cut, pieces)


def test_a_stream_cut_anywhere_adds_up_to_the_checked_answer() -> None:
    """Random answers in random pieces: what is streamed is the checked answer exactly, a
    dropped citation after a line break included."""
    stream = CitationStream(ODD, SOURCES)
    pieces = ["Notes/a\n[", "S", "12]", " "]
    sent = "".join([*(stream.feed(piece) for piece in pieces), stream.close()])
    assert sent == check_citations("".join(pieces), ODD, SOURCES).text == "Notes/a"
    words = ["Notes/a", "\n", " ", "[", "S", "1", "12", "]", "[[", "]]", "x", ".", "#", "md"]
    words += ["[S12]", "[S1]", "\n[S9]", " [Gone.md] "]
    assert_streams_as_whole(words, ODD, SOURCES, seed=7, rounds=3_000, longest=14)


@pytest.mark.parametrize(
    "text",
    [
        "Order [S" + "1" * 60 + " pending",
        "[S1" + "  2" * 300 + " x",
        "[S1 " + "S1 " * 2000 + "x",
        "[" + " " * 10_000,
    ],
)
def test_a_long_bracket_that_never_closes_as_a_marker_is_read_at_once(text: str) -> None:
    """An optional separator let a run of digits or spaces split exponentially many ways: 30
    digits after "[S" held the event loop for minutes."""
    checked = check_citations(text, ODD, SOURCES)
    assert checked.text == text.strip() and checked.cited == []
    stream = CitationStream(ODD, SOURCES)
    assert "".join([stream.feed(text), stream.close()]) == checked.text


def test_a_source_word_split_by_a_line_break_streams_as_the_whole() -> None:
    stream = CitationStream(ODD, SOURCES)
    sent = "".join([*(stream.feed(c) for c in "x [\nSource 1]"), stream.close()])
    assert sent == check_citations("x [\nSource 1]", ODD, SOURCES).text


def test_two_chunks_of_one_section_cited_together_are_told_apart_and_both_cited() -> None:
    first = hit("Long.md", "Setup", "part one", line=1)
    second = replace(first, id="Long.md#Setup/2", text="part two", line_start=40, line_end=60)
    checked = check_citations(
        "Both parts [S1, S2]. Again [S2].", [first, second], {1: first, 2: second}
    )
    assert checked.text == (
        "Both parts [Long.md#Setup] [Long.md#Setup:40-60]. Again [Long.md#Setup:40-60]."
    )
    assert checked.cited == [first, second]


def test_a_hit_left_out_of_the_prompt_cannot_be_cited_by_its_label_either() -> None:
    """Only the blocks the prompt showed are citable: a hit that did not fit the context window
    is text the model never saw, whether written as a label, the old form or a wikilink."""
    shown = {1: HITS[0]}
    text = "Work [S1]. Secret [Recipes.md#Lasagna]. Also [[Recipes#Lasagna]]. [People/Alice.md]."
    checked = check_citations(text, HITS, shown)
    assert checked.cited == [HITS[0]]
    assert checked.dropped == ["[Recipes.md#Lasagna]"]
    assert "[[Recipes#Lasagna]]" in checked.text  # a link copied from a note, kept as text
    assert checked.text.endswith("[People/Alice.md#Alice > Work].")


def test_an_open_bracket_then_a_long_paragraph_streams_without_waiting_for_the_end() -> None:
    """ "[0, 1)" never closes as a citation: the text after it is sent as it comes, not held
    until a line break (and not scanned again from the bracket at every piece)."""
    raw = "The interval [0, 1) " + "holds every point. " * 500
    stream = CitationStream(ODD, SOURCES)
    sent = "".join(stream.feed(raw[i : i + 7]) for i in range(0, len(raw), 7))
    assert len(sent) > len(raw) - 1100  # held back at most SPAN_CHARS after the "["
    assert sent + stream.close() == check_citations(raw, ODD, SOURCES).text


def test_an_invented_citation_longer_than_any_label_is_still_removed() -> None:
    label = "[Projects/2024/Q3/Marketing strategy overview.md#Goals > Budget > Q3 > Ads]"
    checked = check_citations(f"Spend more on ads {label}.", [HITS[2]], {1: HITS[2]})
    assert checked.text == "Spend more on ads." and checked.dropped == [label]


@pytest.mark.parametrize(
    ("raw", "sent"),
    [
        ("Basics [S1] and more [S", "Basics [C# notes.md#Intro] and more"),
        ("Basics [S1] and more [[S1, S", "Basics [C# notes.md#Intro] and more"),
        ("Basics [S1]", "Basics [C# notes.md#Intro]"),  # a marker whole at the cut stays
        ("Order [1, 2", "Order [1, 2"),  # not a source marker: text
        ("Basics [S1", "Basics"),
        ("Basics [C# notes.md#In", "Basics"),  # a label split by the cut
        ("Basics [[C# no", "Basics"),
        ("Basics [C# is a language", "Basics [C# is a language"),  # no label begins so: text
    ],
)
def test_a_marker_split_by_a_cut_is_left_out(raw: str, sent: str) -> None:
    """An answer cut at its length or time limit may end inside a source marker: the piece is
    no citation and no text, so it is left out of the streamed and the checked answer."""
    stream = CitationStream(ODD, SOURCES)
    assert "".join([stream.feed(raw), stream.cut()]) == sent
    assert check_citations(stream.text, ODD, SOURCES).text == sent


@pytest.mark.parametrize(
    ("text", "rendered", "dropped"),
    [
        ("Alice works at Acme [1]. Bob [S2].", "Alice works at Acme. Bob [a [draft].md#Step [1]].",
         ["[1]"]),
        ("Acme.[2] Bob [1, 3]; Carol [4] [S1]", "Acme. Bob; Carol [C# notes.md#Intro]",
         ["[2]", "[1, 3]", "[4]"]),
        ("The last claim [3]", "The last claim", ["[3]"]),
    ],
)  # fmt: skip
def test_a_bare_number_used_as_a_citation_is_removed_and_reported(
    text: str, rendered: str, dropped: list[str]
) -> None:
    """ "[1]" is no number the prompt gave (its blocks are S1, S2…): after a claim it is a
    citation of nothing the reader can find, removed and reported as an invented [S99] is."""
    checked = check_citations(text, ODD, SOURCES)
    assert (checked.text, checked.dropped) == (rendered, dropped)
    for cut in range(len(text) + 1):
        stream = CitationStream(ODD, SOURCES)
        pieces = [stream.feed(text[:cut]), stream.feed(text[cut:]), stream.close()]
        assert "".join(pieces) == rendered, (cut, pieces)
        assert stream.checked.dropped == dropped


@pytest.mark.parametrize(
    "text",
    [
        "Read array[1] first.",
        "A list [1] and [2] of things.",
        "[1] is the first item.",
        "Steps:\n[1] open\n[2] close",
        "Run `x [1].` in the shell.",
        "See [text][1] for more.",
    ],
)
def test_a_bare_number_that_is_no_citation_stays(text: str) -> None:
    checked = check_citations(text, ODD, SOURCES)
    assert (checked.text, checked.dropped) == (text, [])


def test_an_anchor_is_not_read_again_as_markup() -> None:
    """A chunk's anchor is read from its heading once: `` `__init__` method `` is anchored
    ``__init__ method``; read again it lost its underscores, and neither the anchor nor the
    heading as written named the chunk any more."""
    hits = [hit("Py.md", "Py > __init__ method"), hit("Star.md", "*literal*")]
    assert match_citation("Py.md#Py > __init__ method", hits) is hits[0]
    assert match_citation("Py.md#Py > `__init__` method", hits) is hits[0]
    assert match_citation("Star.md#*literal*", hits) is hits[1]
