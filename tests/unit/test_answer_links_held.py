"""The answer's link filter where tags, brackets and definitions meet: a tag is read before
the brackets around it, what a removal joins is read again, a definition is found wherever a
renderer finds one, and ordinary text stays as written; whole and streamed alike."""

from __future__ import annotations

import pytest

from knotwork.answer.links import LinkStream, inert_links

EVIL = "evil.example"
GIVEN = (
    "<<<BEGIN t [S1] note People/Alice.md, section Alice, lines 1-3>>>\n"
    "Alice's handbook is at https://docs.example/p and [the wiki](https://wiki.example/a).\n"
    "<<<END t>>>\nQuestion: where is the handbook?"
)


def unlinked(raw: str) -> str:
    """``inert_links`` of ``raw``, checked to be what a stream fed ``raw`` in pieces of 1, 3
    and 7 characters sends."""
    whole = inert_links(raw, GIVEN).text
    for size in (1, 3, 7):
        stream = LinkStream(GIVEN)
        pieces = [stream.feed(raw[i : i + size]) for i in range(0, len(raw), size)]
        assert "".join([*pieces, stream.close()]) == whole, (raw, size)
    return whole


def test_a_link_pattern_splits_no_tag() -> None:
    """A ``](`` in a tag's quotes is the tag's: the tag, its href not given, goes whole."""
    raw = 'see [click <a title="](x)" href=//evil.example/p>here</a>'
    assert unlinked(raw) == "see [click here"


@pytest.mark.parametrize(
    "raw",
    [
        "see [a]<img src=x>(//evil.example/p)",
        '[a]<img alt="" src=x>(//evil.example/p) end',
        "<<img src=x>a href=//evil.example/p>t",
    ],
)
def test_what_a_removal_joins_is_read_again(raw: str) -> None:
    text = unlinked(raw)
    assert EVIL not in text and "](" not in text


def test_a_removed_tags_closing_tag_goes_too() -> None:
    raw = "<a href=//evil.example/p>one</a> <b>two</b> <a href=https://docs.example/p>3</a>"
    assert unlinked(raw) == "one <b>two</b> <a href=https://docs.example/p>3</a>"
    assert unlinked("<span style=x><b>s</b></span> </span>") == "<b>s</b> </span>"


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ("[x]:\n  https://evil.example/p\n\nSee [x].", "See [x]."),
        ("[x]:\n  //evil.example/p\nmore", "more"),
        ("<img src=a>[x]: //evil.example/p", ""),
        ("> [x]: https://evil.example", ">"),
        ("> > [x]:\n> //evil.example/p", "> >"),
        ("- [x]: //evil.example/p\n- item", "-\n- item"),
        ("1. [x]: //evil.example/p 'title'", "1."),
    ],
)
def test_a_definition_is_judged_wherever_a_renderer_finds_one(raw: str, text: str) -> None:
    assert unlinked(raw) == text


def test_an_open_bracket_holds_a_stream_only_to_its_lines_end() -> None:
    stream = LinkStream(GIVEN)
    assert stream.feed("An [open bracket and more words\n") == "An"
    assert stream.feed("next") == " [open bracket and more words"
    # the bracket closes into a link later: its address is still judged
    assert stream.feed(" line](//evil.example/p) end") == "\nnext line]"
    assert stream.close() == " end"
    assert unlinked("An [a\nb](//evil.example/p) end") == "An [a\nb] end"
    assert unlinked("An ![a\nb](https://docs.example/p)") == "An ! [a\nb](https://docs.example/p)"


@pytest.mark.parametrize(
    "raw",
    [
        "When retries <max, the server's queue drains [People/Alice.md#Alice]. More text.",
        "Rust's `Box<dyn Error + 'static>` is common [People/Alice.md#Alice].",
        "if a<b and c>d then",
        "[People/Bob.md#Bob]: Bob (CFO) runs ops.",
        "x < 3, a <= b, <3 and a<=b",
        "[doc](https://docs.example/p) and [wiki](https://wiki.example/a)",
        "Alice [People/Alice.md#Alice] and [People/Bob.md#Bob], [S1].",
        "A list:\n- [People/Alice.md#Alice]: she runs it.\n> [People/Bob.md#Bob] said so",
    ],
)
def test_ordinary_text_and_given_addresses_stay(raw: str) -> None:
    assert unlinked(raw) == raw


def test_text_after_a_lone_angle_bracket_streams() -> None:
    stream = LinkStream(GIVEN)
    assert stream.feed("When retries <max, the ") == "When retries <max,"
    assert stream.feed("server's queue drains") == " the server's queue"


def test_images_are_their_alt_text_and_citations_stay_whole() -> None:
    raw = "![logo](https://docs.example/p) [People/Alice.md#Alice] <img alt=pic src=x>"
    assert unlinked(raw) == "logo [People/Alice.md#Alice] pic"


ADVERSARIAL = [
    '<a href="//evil.example/p" title="x>y">t</a>',
    '<a title=">" href=//evil.example/p>t</a>',
    "<a href='//evil.example/p'\n>t</a> after",
    "<a\nhref=//evil.example/p>t</a>",
    "[a](<//evil.example/p>)",
    "[a]( //evil.example/p )",
    "[a [b [c]]](//evil.example/p)",
    "[a\n\nb](//evil.example/p)",
    "![a](//evil.example/p)",
    "![a][r]\n\n[r]: //evil.example/p",
    "<a href=//docs.example/x <img src=y> title=z href=//evil.example/p>t</a>",
    "<div>\n<a href=//evil.example/p title='x>t</a>\n</div>",
    "[x]: https://docs.example/p\n[y]: //evil.example/p",
    "<A HREF=//evil.example/p>t</A>",
    "<a href=https://docs.example/p ping=//evil.example/p>t</a>",
    "<a href=https://docs.example/p>ok</a> <a href=//evil.example/p>bad</a> done",
    "Go https://evil.example/p, or www.evil.example.",
    "<https://evil.example/p> and <img\nsrc=//evil.example/i>",
    '<iframe srcdoc="x" title=">"></iframe><img title="](" src=//evil.example/p>',
    "`<a href=//evil.example/p>code</a>`",
    "[a](https://docs.example/p?d=//evil.example/p)",
    "<img src=x><img src=y>[x]:\n//evil.example/p",
    "[click <b>bold](//evil.example/p)</b>",
    '<a href=//evil.example/p title="](https://docs.example/p)">t</a>',
]


@pytest.mark.parametrize("raw", ADVERSARIAL)
def test_no_address_not_given_survives(raw: str) -> None:
    text = unlinked(raw)
    assert EVIL not in text, text
    assert not inert_links(text, GIVEN).links  # nothing left that would still go


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        (
            "- [People/Alice.md#Alice]: CTO\n- [People/Bob.md#Bob]: CFO",
            "- [People/Alice.md#Alice]\\: CTO\n- [People/Bob.md#Bob]\\: CFO",
        ),
        ("[People/Bob.md#Bob]: Bob (CFO)", "[People/Bob.md#Bob]\\: Bob (CFO)"),
        ("> [S1]: yes", "> [S1]\\: yes"),
        ("[x]: evil.example", ""),
    ],
)
def test_a_definition_of_a_word_keeps_its_text(raw: str, text: str) -> None:
    """A model's "[citation]: word" list would be hidden as definitions by a renderer and
    deleted as one by the filter: the colon is escaped instead, the citations kept whole."""
    assert unlinked(raw) == text
