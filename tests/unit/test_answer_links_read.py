"""The answer's link filter as a renderer reads its output: code stays as written, a bare
address ends where a code span or a table cell does, CRLF is a line break like LF, and no
address not given stays live, whether the output is read as CommonMark (markdown-it, an HTML
block ending at a blank line) or as HTML (a browser's tag reading across it); whole and
streamed alike."""

from __future__ import annotations

import random
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from knotwork.answer.links import REMOVED, LinkStream, inert_links
from tests.unit.test_answer_links_held import EVIL, GIVEN, unlinked


class _Values(HTMLParser):
    """Every attribute value of the tags an HTML reader finds, whitespace removed as a browser
    removes it from an address."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.values: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.values += ["".join((v or "").split()) for name, v in attrs if name != "class"]


def live(text: str) -> list[str]:
    """The attribute values naming the attacker's host in ``text`` read as HTML and in its
    CommonMark rendering (raw HTML on)."""
    found = []
    for html in (text, MarkdownIt("commonmark").render(text)):
        reader = _Values()
        reader.feed(html)
        reader.close()
        found += [value for value in reader.values if EVIL in value]
    return found


@pytest.mark.parametrize(
    "raw",
    [
        "Call `handlers[event](payload)` on each event.",
        "```js\nhandlers[event](payload);\nconst v = vec![1, 2];\n[x]: payload\n```",
        "In Rust `vec![1, 2]` and `![a](b)`, in JS `fns[i](x, y)` and `a[i][j](k)`.",
        "``x[`y`](z)`` and\n~~~\nf[a](b) // [c]: d\n~~~\nafter",
    ],
)
def test_code_stays_as_written(raw: str) -> None:
    assert unlinked(raw) == raw


def test_code_still_loses_an_address_not_given() -> None:
    raw = "`[a](//evil.example/p)` `[b](https://evil.example/q)` `h[i](j)`\n```\n[r]: //e.x\n```"
    assert unlinked(raw) == "`[a]` `[b]` `h[i](j)`\n```\n\n```"
    # out of code, such a link is one: its address goes as any not given
    assert unlinked("handlers[event](payload)") == "handlers[event]"


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ("| https://evil.example/x | b |", f"| {REMOVED} | b |"),
        ("| https://evil.example/x|b |\n|---|---|", f"| {REMOVED}|b |\n|---|---|"),
        ("`https://evil.example/x` and", f"`{REMOVED}` and"),
        ("a `www.evil.example/x`, b", f"a `{REMOVED}`, b"),
    ],
)
def test_a_bare_address_ends_before_a_backtick_or_a_bar(raw: str, text: str) -> None:
    assert unlinked(raw) == text


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ("[r]: //evil.example\r\n\r\nSee [r].", "See [r]."),
        ("See [r].\r\n[r]: https://evil.example/p\r\nmore", "See [r].\n\nmore"),
        ("> [x]:\r\n> //evil.example/p\r\nmore", ">\nmore"),
        ("- [x]: //evil.example/p\r\n- item", "-\n- item"),
        ("[x]: //evil.example/p\rend", "end"),
        ("a\r\nb\r\n\r\n[People/Bob.md#Bob]: Bob (CFO) runs ops.", None),
    ],
)
def test_a_crlf_line_is_read_as_an_lf_one(raw: str, text: str | None) -> None:
    assert unlinked(raw) == (text if text is not None else raw.replace("\r\n", "\n"))


HTML_READINGS = [
    "<div>\n<a href=//evil.example/p<x>t</a>\n</div>",
    "<div>\n<a href=//evil.example/p<x title=y>t</a>",
    '<div>\n<a title="x\n\n" href=//evil.example/p>t</a>\n</div>',
    '<a title="x\n\n" href = "//evil.example/p">t</a>',
    '<div>\n<a href="//evil.example/p\n\nx">t</a>\n</div>',
    '<div>\n<a href="\n\n//evil.example/p">t</a>\n</div>',
    "<div>\n<a href=\n\n//evil.example/p>t</a>",
    '<div>\n<img title="a\n\n" src=//evil.example/i>\n</div>',
    '<p>\n<a href="//evil.\n\nexample/p">t</a>',
]


@pytest.mark.parametrize("raw", HTML_READINGS)
def test_no_address_lives_in_an_html_block_read_either_way(raw: str) -> None:
    assert live(raw)  # the case is one: unfiltered, an address lives
    assert live(unlinked(raw)) == []


@pytest.mark.parametrize(
    "raw",
    [
        '<link rel=preload as=image imagesrcset="//evil.example/a 1x">',
        '<meta http-equiv="refresh" content="0;url=//evil.example">',
        '<svg><animate attributeName="href" values="//evil.example"/></svg>',
        '<svg><a><set attributeName="href" to="//evil.example"/>x</a></svg>',
        '<svg><a><animate attributeName="href" from="/" to="//evil.example"/>x</a></svg>',
        "<form><button formaction=//evil.example>x</button></form>",
        "<a ping=//evil.example href=https://docs.example/p>y</a>",
        "<form action=//evil.example></form>",
        "<video poster=//evil.example></video>",
        "<svg><a xlink:href=//evil.example>z</a></svg>",
    ],
)
def test_every_attribute_that_links_or_loads_is_judged(raw: str) -> None:
    text = unlinked(raw)
    assert EVIL not in text and live(text) == []


PARTS = [
    "Alice [People/Alice.md#Alice] ",
    "`handlers[event](payload)` ",
    "```\nf[a](b)\n```\n",
    "| https://evil.example/x|b | ",
    "`https://evil.example/y` ",
    "\r\n",
    "\r\n[r]: //evil.example/r\r\n",
    "<div>\n",
    "<a href=//evil.example/p<x>t</a> ",
    '<a title="x\n\n" href=//evil.example/h>t</a> ',
    '<meta http-equiv=refresh content="0;url=//evil.example"> ',
    "[doc](https://docs.example/p) ",
    "When retries <max, the server's queue drains ",
    "\n\n",
    "[open ",
    "a href = ",
    '"//evil.example/q" ',
]


def test_a_stream_cut_anywhere_agrees_and_leaves_nothing_live() -> None:
    rng = random.Random(11)
    for _ in range(300):
        raw = "".join(rng.choice(PARTS) for _ in range(rng.randint(1, 10)))
        cuts = sorted(rng.sample(range(len(raw) + 1), min(5, len(raw) + 1)))
        pieces = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
        stream = LinkStream(GIVEN)
        sent = "".join([*(stream.feed(piece) for piece in pieces), stream.close()])
        whole = inert_links(raw, GIVEN).text
        assert sent == whole, (raw, pieces)
        assert live(whole) == [], raw
        assert "handlers[event](payload)" not in raw or "`handlers[event](payload)`" in whole


def test_the_brackets_code_hides_are_none_the_model_can_write() -> None:
    """The filter hides a kept link's brackets behind two noncharacters while it reads again:
    a model that writes them gets no brackets out of them."""
    raw = "`a` \ufdd0x\ufdd1(//evil.example/p) \ufdd0y\ufdd1: //evil.example/q"
    text = unlinked(raw)
    assert "[" not in text and live(MarkdownIt("commonmark").render(text)) == []
    assert "<a" not in MarkdownIt("commonmark").render(text)
