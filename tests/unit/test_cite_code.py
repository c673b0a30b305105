"""Code in an answer stays as written, as Markdown reads code: a span from a run of backticks to
the next run of its length, on a later line too but not past a blank line (a run none closes is
backticks as written), and a fence at a line's start to its closing fence or the answer's end;
whole or streamed in any pieces, a run of backticks split between them included."""

from __future__ import annotations

import random
import re

import pytest
from markdown_it import MarkdownIt

from knotwork.answer.cite import check_citations
from knotwork.answer.cite_code import code_map
from knotwork.answer.cite_stream import CitationStream
from tests.conftest import hit
from tests.unit.cite_streams import assert_streams_as_whole

HITS = [hit("Alice.md", "Work"), hit("Bob.md", "")]
SOURCES = {1: HITS[0], 2: HITS[1]}
ALICE, BOB = "[Alice.md#Work]", "[Bob.md]"
COMMONMARK = MarkdownIt("commonmark")


def assert_renders(raw: str, rendered: str) -> None:
    """The whole answer renders so, and so does the stream however the answer is cut in three."""
    assert check_citations(raw, HITS, SOURCES).text == rendered
    for i in range(len(raw) + 1):
        for j in range(i, len(raw) + 1):
            stream = CitationStream(HITS, SOURCES)
            pieces = [stream.feed(raw[:i]), stream.feed(raw[i:j]), stream.feed(raw[j:])]
            assert "".join([*pieces, stream.close()]) == rendered, (i, j)


@pytest.mark.parametrize(
    ("raw", "rendered"),
    [
        # A fence written mid-line is a span of three backticks, closed on a line of its own;
        # after it, the text is no longer code.
        (
            "Run this: ```python\nx = a[S1]\n```\nok [S2]",
            f"Run this: ```python\nx = a[S1]\n```\nok {BOB}",
        ),
        ("Call `f(\n  a[S1])` then [S2].", f"Call `f(\n  a[S1])` then {BOB}."),
        ("See ``x`` [S1] ``y\nz [S2]`` w", f"See ``x`` {ALICE} ``y\nz [S2]`` w"),
        # A run that none closes is a backtick, not code to its line's end.
        ("Press the ` key [S1]. Then [S2].", f"Press the ` key {ALICE}. Then {BOB}."),
    ],
)
def test_code_opened_mid_line_runs_to_its_closing_run(raw: str, rendered: str) -> None:
    assert_renders(raw, rendered)


@pytest.mark.parametrize(
    ("raw", "rendered"),
    [
        ("Use ``` `a[1]` ``` here [S1].", f"Use ``` `a[1]` ``` here {ALICE}."),
        ("Use ```` ``` (S1) ``` ```` here [S2].", f"Use ```` ``` (S1) ``` ```` here {BOB}."),
        ("See ``a ` [S1]`` and [S2].", f"See ``a ` [S1]`` and {BOB}."),
        # Not past a blank line: the run closes nothing, the marker after it cites.
        ("A `tick\n\nthen [S1] and ` here", f"A `tick\n\nthen {ALICE} and ` here"),
        # Nor past a fence that opens: "``" is two backticks, the fence is code.
        ("Use `` here.\n```js\nf([S1]) ``;\n```\nok [S2]",
         f"Use `` here.\n```js\nf([S1]) ``;\n```\nok {BOB}"),
        # A fence at a line's start, indented up to three spaces, runs to its closing fence or
        # the answer's end; an escaped backtick opens nothing.
        ("Go:\n   ```\n[S1]\n   ```\nok [S2]", f"Go:\n   ```\n[S1]\n   ```\nok {BOB}"),
        ("Go:\n~~~\n(S1)\n~~~\n```sh\nrm [S2]", "Go:\n~~~\n(S1)\n~~~\n```sh\nrm [S2]"),
        ("Escaped \\`[S1]` [S2]", f"Escaped \\`{ALICE}` {BOB}"),
    ],
)  # fmt: skip
def test_code_spans_and_fences_as_markdown_reads_them(raw: str, rendered: str) -> None:
    assert_renders(raw, rendered)


def test_a_stream_holds_back_a_bracket_only_until_its_code_span_is_settled() -> None:
    stream = CitationStream(HITS, SOURCES)
    assert stream.feed("Use `a[S1]") == "Use `a"  # a span or a backtick: not known yet
    assert stream.feed("` then [S2].") == f"[S1]` then {BOB}."
    stray = CitationStream(HITS, SOURCES)
    assert stray.feed("Press ` now [S1].\nMore") == "Press ` now"
    assert stray.feed("\n\nNext [S2].") == f" {ALICE}.\nMore\n\nNext {BOB}."


def test_code_streams_as_the_whole_in_random_pieces() -> None:
    words = ["`", "``", "```", "```py", "\n", "\n\n", "\r", " ", "x", "~~~", "\\", "- ", "   "]
    words += ["[S1]", "(S2)", "[S9]", "[", "S1", "]", "Run: "]
    assert_streams_as_whole(words, HITS, SOURCES, seed=3, rounds=3_000, longest=16)


def test_a_longer_text_maps_as_a_fresh_read_would() -> None:
    """A stream's map goes on from the last one's: the same spans as a map read from scratch."""
    raw = "Run: ```py\nx`` = [1]\n```\nA `b\nc` d ` e\n\n~~~\nf\n~~~\n`g`` h`` i` ```x"
    for cut in range(len(raw) + 1):
        since = code_map(raw[:cut], final=False)
        for final in (False, True):
            went_on = code_map(raw, final, since)
            fresh = code_map(raw, final)
            assert [went_on.at(i) for i in range(len(raw))] == [
                fresh.at(i) for i in range(len(raw))
            ], (cut, final)


@pytest.mark.parametrize(
    ("raw", "sent"),
    [
        # The cut ends the answer: a run of backticks that none closes is backticks, so the
        # citation it split is left out, as without them.
        ("Run `f [S1", "Run `f"),
        ("Press the ` key.\nAlice works [S1", "Press the ` key.\nAlice works"),
        ("Press ` key.\nAlice works at [Alice.md#Wo", "Press ` key.\nAlice works at"),
        # After brackets the stream had not settled yet.
        ("Press ` (x) and [y] then [S1", "Press ` (x) and [y] then"),
        ("Alice [see notes and more [S1", "Alice [see notes and more"),
        # Inside a fence, code: kept as written.
        ("Run:\n```\nf [S1", "Run:\n```\nf [S1"),
    ],
)
def test_a_cut_leaves_out_the_citation_it_split_unless_in_code(raw: str, sent: str) -> None:
    stream = CitationStream(HITS, SOURCES)
    assert "".join([stream.feed(raw), stream.cut()]) == sent
    assert stream.text.rstrip() == sent


@pytest.mark.parametrize(
    ("raw", "rendered"),
    [
        # A code span is read within its paragraph: a line that starts a block ends it.
        ("- Press the ` key to open the console [S1]\n- Type ` again to close it [S2]",
         f"- Press the ` key to open the console {ALICE}\n- Type ` again to close it {BOB}"),
        ("1. Press ` [S1]\n2. Then ` [S2]", f"1. Press ` {ALICE}\n2. Then ` {BOB}"),
        ("Press ` [S1]\n# Then ` [S2]", f"Press ` {ALICE}\n# Then ` {BOB}"),
        ("# Press ` [S1]\nThen ` [S2]", f"# Press ` {ALICE}\nThen ` {BOB}"),
        ("Press ` [S1]\n---\nThen ` [S2]", f"Press ` {ALICE}\n---\nThen ` {BOB}"),
        ("Press ` [S1]\n===\nThen ` [S2]", f"Press ` {ALICE}\n===\nThen ` {BOB}"),
        ("Press ` [S1]\n* * *\nThen ` [S2]", f"Press ` {ALICE}\n* * *\nThen ` {BOB}"),
        ("Press ` [S1]\n> Then ` [S2]", f"Press ` {ALICE}\n> Then ` {BOB}"),
        ("> Press ` [S1]\n> > Then ` [S2]", f"> Press ` {ALICE}\n> > Then ` {BOB}"),
        ("> Press ` [S1]\n>\n> Then ` [S2]", f"> Press ` {ALICE}\n>\n> Then ` {BOB}"),
        ("- > Press ` [S1]\n> Then ` [S2]", f"- > Press ` {ALICE}\n> Then ` {BOB}"),
        ("- Press ` [S1]\n  - Then ` [S2]", f"- Press ` {ALICE}\n  - Then ` {BOB}"),
        # The paragraph's first line says which blocks it is in, not the opening run's line.
        ("Intro\n2. Press ` [S1]\n===\nx ` [S2]", f"Intro\n2. Press ` {ALICE}\n===\nx ` {BOB}"),
        ("> Quote\nlazy ` [S1]\n> more ` [S2]", f"> Quote\nlazy ` [S1]\n> more ` {BOB}"),
        # Lines that go on with the paragraph: the span runs on to its closing run.
        ("> Press ` [S1]\nthen ` [S2]", f"> Press ` [S1]\nthen ` {BOB}"),
        ("- Press ` [S1]\n  then ` [S2]", f"- Press ` [S1]\n  then ` {BOB}"),
        ("Press ` [S1]\n2. then ` [S2]", f"Press ` [S1]\n2. then ` {BOB}"),
        ("Press ` [S1]\n    - then ` [S2]", f"Press ` [S1]\n    - then ` {BOB}"),
        ("- Press ` [S1]\n===\nthen ` [S2]", f"- Press ` [S1]\n===\nthen ` {BOB}"),
        ("Press ` [S1]\n-then ` [S2]", f"Press ` [S1]\n-then ` {BOB}"),
    ],
)  # fmt: skip
def test_a_code_span_ends_with_its_paragraph(raw: str, rendered: str) -> None:
    assert_renders(raw, rendered)


CASE_WORDS = ["`", "``", "\n", "\n\n", " ", "   ", "x ", "\\", "- ", "* ", "+ ", "# ", "## "]
CASE_WORDS += ["#x ", "> ", "1. ", "2. ", "---\n", "===\n", "-\n", "***\n"]


def test_code_spans_are_where_commonmark_reads_them() -> None:
    """A differential check against markdown-it-py's CommonMark reader over generated answers
    of code spans, list items, headings, quotes and breaks: "[S1]" is code for both or for
    neither. Fences and indented code blocks are left out (read by the note parser's rule)."""
    rng = random.Random(7)
    checked = 0
    while checked < 1_500:
        words = [rng.choice(CASE_WORDS) for _ in range(rng.randint(1, 12))]
        words.insert(rng.randint(0, len(words)), " [S1] ")
        raw = "word " + "".join(words)
        html = COMMONMARK.render(raw)
        if "<pre" in html:
            continue
        checked += 1
        in_code = "[S1]" not in re.sub(r"<code>.*?</code>", "", html, flags=re.S)
        assert ("[S1]" in check_citations(raw, HITS, SOURCES).text) is in_code, (raw, html)


def test_block_lines_stream_as_the_whole() -> None:
    words = [*CASE_WORDS, "[S1]", "[S2]", "[", "S1", "]", "\r"]
    assert_streams_as_whole(words, HITS, SOURCES, seed=17, rounds=3_000, longest=16)
