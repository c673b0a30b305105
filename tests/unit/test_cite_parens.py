"""Source numbers in parentheses and lenticular brackets ("(S1)", "\u3010S1\u3011"): resolved
as "[S1]" is, a number the prompt never gave removed and reported in brackets of either kind,
and parentheses of ordinary prose, of names ("Galaxy (S23)") or code left alone, whole or
streamed."""

from __future__ import annotations

import time

import pytest

from knotwork.answer.cite import check_citations
from knotwork.answer.cite_sources import inert
from knotwork.answer.cite_stream import CitationStream
from knotwork.answer.prompt import build_prompt
from knotwork.answer.respond import finish
from knotwork.retrieve import Evidence, FactRow
from tests.conftest import hit
from tests.unit.cite_streams import assert_streams_as_whole

HITS = [hit("Alice.md", "Work"), hit("Bob.md", ""), hit("Acme.md", "History")]
SOURCES = {1: HITS[0], 2: HITS[1], 3: HITS[2]}
ALICE, BOB, ACME = "[Alice.md#Work]", "[Bob.md]", "[Acme.md#History]"


def streamed(text: str, size: int) -> tuple[str, list[str]]:
    stream = CitationStream(HITS, SOURCES)
    pieces = [stream.feed(text[i : i + size]) for i in range(0, len(text), size)]
    return "".join([*pieces, stream.close()]), stream.checked.dropped


@pytest.mark.parametrize(
    ("text", "rendered", "dropped"),
    [
        ("Alice works (S1).", f"Alice works {ALICE}.", []),
        ("Alice works (S1, S2).", f"Alice works {ALICE} {BOB}.", []),
        ("Alice works (Sources 1-3).", f"Alice works {ALICE} {BOB} {ACME}.", []),
        ("Alice works ( Source: S2 ) here.", f"Alice works {BOB} here.", []),
        ("Alice works (Source 3)", f"Alice works {ACME}", []),
        ("Alice works (S1, S9).", f"Alice works {ALICE}.", ["[S9]"]),
        ("Alice works \u3010S1\u3011.", f"Alice works {ALICE}.", []),
        ("Alice works\u3010S2\u2020source\u3011.", f"Alice works{BOB}.", []),
        ("Alice works \u3010Source 1, S3\u3011.", f"Alice works {ALICE} {ACME}.", []),
        ("Alice works \u3010S7\u3011.", "Alice works.", ["[S7]"]),
        ("Alice works [^S2].", f"Alice works {BOB}.", []),
        ("Alice works [^S8].", "Alice works.", ["[S8]"]),
    ],
)
def test_source_numbers_in_parentheses_and_lenticular_brackets_cite(
    text: str, rendered: str, dropped: list[str]
) -> None:
    checked = check_citations(text, HITS, SOURCES)
    assert (checked.text, checked.dropped) == (rendered, dropped)
    for size in (1, 2, 3, 7):
        assert streamed(text, size) == (rendered, dropped), size


@pytest.mark.parametrize(
    "text",
    [
        "Alice works (see S1 of the manual).",
        "Step one (1) comes first.",
        "It ran from (1990 to 2000) there.",
        "Call f(S1) to start.",
        "Alice works (s1), (s1, s2), (sources 1-2), (Source 1, s2).",
        "Read [the spec](S1) first.",
        "The Galaxy (S1 model) sold well.",
        "\u3010Note\u3011 Alice works here.",
        "An open ( S and more",
        "Unclosed \u3010S1 and more",
    ],
)
def test_parentheses_of_ordinary_prose_stay(text: str) -> None:
    checked = check_citations(text, HITS, SOURCES)
    assert (checked.text, checked.cited, checked.dropped) == (text, [], [])
    for size in (1, 2, 5):
        assert streamed(text, size) == (text, []), size


def test_a_marker_split_anywhere_streams_as_the_whole() -> None:
    raw = "A (S1) b (S9, S2) c (see S1) d \u3010S3\u3011 e f(S1) (S1 x) (Sources 1-2)"
    whole = check_citations(raw, HITS, SOURCES)
    for i in range(len(raw) + 1):
        for j in range(i, len(raw) + 1, 4):
            stream = CitationStream(HITS, SOURCES)
            pieces = [stream.feed(raw[:i]), stream.feed(raw[i:j]), stream.feed(raw[j:])]
            assert "".join([*pieces, stream.close()]) == whole.text, (i, j)
            assert stream.checked.dropped == whole.dropped == ["[S9]"]
    words = ["(", ")", "S", "1", "9", ", ", " ", "x", "\u3010", "\u3011", "(S1)", "(S2", "]"]
    assert_streams_as_whole(words, HITS, SOURCES, seed=11, rounds=2_000, longest=12)


@pytest.mark.parametrize(
    ("raw", "sent"),
    [("Alice works (S1", "Alice works"), ("Alice (S1, S", "Alice"), ("Alice \u3010S", "Alice")],
)
def test_a_marker_split_by_a_cut_is_left_out(raw: str, sent: str) -> None:
    stream = CitationStream(HITS, SOURCES)
    assert "".join([stream.feed(raw), stream.cut()]) == sent


def test_a_long_parenthesis_that_never_closes_is_read_at_once() -> None:
    text = "Order (S1 " + "S1 " * 2000 + "x"
    assert check_citations(text, HITS, SOURCES).text == text
    assert streamed(text, 500)[0] == text


def test_note_text_shows_these_markers_inert() -> None:
    """A note's "(S2)" in the prompt could pass for block 2's number, as its "[S2]" could."""
    shown = inert("Study (S2) and \u3010S3\u3011 and (see S1) and [S1].")
    assert check_citations(shown, HITS, SOURCES).cited == []
    assert "(see S1)" in shown


@pytest.mark.parametrize(
    ("text", "cited"),
    [
        ("Alice's loop is:\n```c\nwhile (s2) {\n  s2 = next(S2);\n}\n```\nends (S1).", ALICE),
        ("The check is `if (s1) return;` and `if (S9) return;` [S1].", ALICE),
        ("Use `strcmp (S1, S2)`, `a[S1]`, `x [1].` and `\u3010S3\u3011` here (S2).", BOB),
        ("Run:\n````sh\n```\nfoo (S1) [S2] [Bob.md]\n````\nthen (S3).", ACME),
        ("Run:\n~~~\nfoo (S1)\n~~~\n- ```js\n  f([S1]);\n  ```\nthen `` a ` (S2) `` [S3].", ACME),
    ],
)  # fmt: skip
def test_code_stays_as_written(text: str, cited: str) -> None:
    """A source number in code, inline or fenced ("if (s1)", "a[S1]"), is code: never a
    citation, never removed; only the marker after the code (the text's last) cites."""
    rendered = f"{text.rpartition(' ')[0]} {cited}."
    checked = check_citations(text, HITS, SOURCES)
    assert (checked.text, checked.dropped, len(checked.cited)) == (rendered, [], 1)
    for size in (1, 2, 3, 7):
        assert streamed(text, size) == (rendered, []), size


def test_a_marker_outside_code_still_cites() -> None:
    text = "Code `x` then (S1), ```y``` then [S2], and `z` (S3)."
    checked = check_citations(text, HITS, SOURCES)
    assert checked.text == f"Code `x` then {ALICE}, ```y``` then {BOB}, and `z` {ACME}."


def test_code_streams_as_the_whole() -> None:
    words = ["`", "```", "\n", "(S1)", "(s2)", "[S2]", "(S9)", " ", "x", "~~~", "\\", "(", "S1"]
    assert_streams_as_whole(words, HITS, SOURCES, seed=5, rounds=2_000, longest=14)


def test_a_cut_inside_a_fence_keeps_the_code() -> None:
    stream = CitationStream(HITS, SOURCES)
    assert "".join([stream.feed("Run:\n```\nf (S1"), stream.cut()]) == "Run:\n```\nf (S1"


def test_a_cut_after_a_backtick_left_open_leaves_out_the_split_marker() -> None:
    """The cut ends the answer: a run of backticks none closes is backticks, not code."""
    stream = CitationStream(HITS, SOURCES)
    assert "".join([stream.feed("Run `f (S1"), stream.cut()]) == "Run `f"


@pytest.mark.parametrize(
    "text",
    [
        "The Samsung Galaxy (S23) sold well [S1].",
        "Alice works (S99) [S1].",
        "Both the Galaxy (S8, S9) and (Sources 7-9) phones [S1].",
    ],
)
def test_a_parenthesis_that_names_no_block_the_prompt_gave_stays(text: str) -> None:
    """A model name, not a citation: parentheses are no form the prompt asks for (an invented
    "[S99]" is, and is dropped), so numbers in them that name no block are kept as written."""
    rendered = text.replace("[S1]", ALICE)
    checked = check_citations(text, HITS, SOURCES)
    assert (checked.text, checked.cited, checked.dropped) == (rendered, [HITS[0]], [])
    for size in (1, 2, 3, 7):
        assert streamed(text, size) == (rendered, []), size


CAMERAS = hit("Cameras.md", "Cameras", "Alice bought the Sony Alpha (S2) in May.")
CAROL = hit("Carol.md", "", "Carol sells phones.")


def test_a_parenthesis_the_prompt_showed_the_model_is_text_even_when_it_names_a_block() -> None:
    """The prompt gave blocks S1-S3, and a note of it says "Sony Alpha (S2)", a fact "Galaxy
    (S3)", the question "Pixel (S1)": the model copying them writes names, not citations.
    A parenthesis the prompt did not show still cites, streamed as whole."""
    evidence = Evidence(
        hits=[CAMERAS, HITS[1], CAROL],
        timings_ms={},
        facts=[FactRow("Carol", "SELLS", "Galaxy (S3)", "Carol.md", "model", 1.0, None, None)],
    )
    prompt = build_prompt("Did Alice buy the Pixel (S1)?", evidence, 8192)
    assert sorted(prompt.sources) == [1, 2, 3]
    raw = (
        "Alice bought the Sony Alpha (S2) (Source 1), not the Pixel (S1); "
        "Carol sells a Galaxy (S3) [S3]."
    )
    rendered = (
        "Alice bought the Sony Alpha (S2) [Cameras.md#Cameras], not the Pixel (S1); "
        "Carol sells a Galaxy (S3) [Carol.md]."
    )
    result = finish(evidence, raw, time.perf_counter(), prompt)
    assert (result.answer, result.dropped_citations) == (rendered, [])
    assert [c.path for c in result.citations] == ["Cameras.md", "Carol.md"]
    stream = CitationStream(evidence.hits, prompt.sources, prompt.given)
    assert "".join([*(stream.feed(char) for char in raw), stream.close()]) == rendered
    # Without what the prompt gave, each of them would cite its block.
    assert check_citations(raw, evidence.hits, prompt.sources).text.count("(S") == 0


def answered(evidence: Evidence, question: str, raw: str) -> tuple[str, list[str], list[str]]:
    """The answer ``raw`` renders to, its cited paths and dropped citations, after a prompt
    built for ``question``: whole, and streamed character by character alike."""
    prompt = build_prompt(question, evidence, 2048)
    result = finish(evidence, raw, time.perf_counter(), prompt)
    stream = CitationStream(evidence.hits, prompt.sources, prompt.given)
    sent = "".join([*(stream.feed(char) for char in raw), stream.close()])
    assert sent == result.answer
    return str(result.answer), [c.path for c in result.citations], result.dropped_citations


def test_a_parenthesis_a_note_shows_elsewhere_still_cites() -> None:
    """Block S1 says "Databases (S2) and Networks (S1)": the model's "lecturer (S2)" and
    "Databases (S1)" are not written so in the prompt, so they cite; "Databases (S2)" is."""
    courses = hit("Courses.md", "Plan", "Alice teaches Databases (S2) and Networks (S1) this year.")
    alice = hit("Alice.md", "Work", "Alice works at Acme as a lecturer.")
    evidence = Evidence(hits=[courses, alice], timings_ms={}, facts=[])
    raw = "Alice works at Acme as a lecturer (S2). She teaches Databases (S1)."
    assert answered(evidence, "Where does Alice work?", raw) == (
        "Alice works at Acme as a lecturer [Alice.md#Work]. "
        "She teaches Databases [Courses.md#Plan].",
        ["Alice.md", "Courses.md"],
        [],
    )
    copied = "She teaches databases (S2) [S1]."
    assert answered(evidence, "Where does Alice work?", copied)[0] == (
        "She teaches databases (S2) [Courses.md#Plan]."
    )


def test_a_name_in_a_block_header_or_a_fact_source_is_text() -> None:
    """The prompt shows a note's name in its block's header and, for a fact of a note with no
    block, at the fact's end: "Galaxy (S2)" copied from either is a name."""
    galaxy = hit("Phones/Galaxy (S2).md", "", "Alice bought it in May.")
    bob = hit("Bob.md", "", "Bob sells phones.")
    fact = FactRow("Carol", "OWNS", "a phone", "Phones/Pixel (S1).md", "model", 1.0, 2, None)
    evidence = Evidence(hits=[galaxy, bob], timings_ms={}, facts=[fact])
    raw = "Alice bought the Galaxy (S2) in May [S1]; Carol owns the Pixel (S1) [S2]."
    assert answered(evidence, "Which phone did Alice buy?", raw) == (
        "Alice bought the Galaxy (S2) in May [Phones/Galaxy (S2).md]; "
        "Carol owns the Pixel (S1) [Bob.md].",
        ["Phones/Galaxy (S2).md", "Bob.md"],
        [],
    )


def test_a_parenthesis_only_in_the_text_cut_to_fit_cites() -> None:
    """The hit is cut to fit the window: its "appendix (S1)" past the cut was never shown."""
    big = hit("Big.md", "", "Alice works at Acme. " + "filler " * 3000 + "See the appendix (S1).")
    evidence = Evidence(hits=[big], timings_ms={}, facts=[])
    raw = "Alice works at Acme, see the appendix (S1)."
    assert answered(evidence, "Where does Alice work?", raw) == (
        "Alice works at Acme, see the appendix [Big.md].",
        ["Big.md"],
        [],
    )


@pytest.mark.parametrize(
    ("shown", "text", "cites"),
    [
        ("the Samsung Galaxy (S2) sold", "Alice has a GALAXY  (S2).", False),
        ("the Samsung Galaxy\n(S2) sold", "Alice has a Galaxy (S2).", False),
        ("the Samsung Galaxy \uff08S2\uff09 sold", "Alice has a Galaxy (S2).", False),
        ("the Samsung Galaxy (S2, S3)", "Alice has a Galaxy (S2, S3).", False),
        ("the Samsung MyGalaxy (S2) sold", "Alice has a Galaxy (S2).", True),
        ("the Samsung Galaxy (S2) sold", "Alice has a MyGalaxy (S2).", True),
        ("the Samsung Galaxy (S2) sold", "Alice has a phone (S2).", True),
        ("the Samsung Galaxy (S2) sold", "Alice has one. (S2)", True),
        ("the Samsung Galaxy (S2) sold", "Alice has a Galaxy (S2, S3).", True),
    ],
)
def test_what_is_compared_with_the_prompt_is_the_word_before_and_the_parenthesis(
    shown: str, text: str, cites: bool
) -> None:
    """Case aside, any run of whitespace as one space, the prompt's look-alike parentheses as
    parentheses; a word, not the end of a longer one."""
    checked = check_citations(text, HITS, SOURCES, given=shown)
    assert bool(checked.cited) is cites
    assert ("(S2" in checked.text) is not cites
