"""How one stretch of an answer's text is held to the context (``answer.links`` says the rules):
images made their alt text, addresses the prompt did not give removed, with the tags that load or
link something and their closing tags. A ``Render`` keeps what it removed across the stretches
of one answer: counts, and the tags whose closing tag is still to come."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from knotwork.plural import counted

REMOVED = "(link removed)"  # stands for a bare address or ``<url>`` the notes did not give
# Brackets and tags end at a blank line, as Markdown reads them.
_IN = r"(?:[^\[\]\n]|\n(?![ \t]*\n))"
_TEXT = rf"(?:{_IN}|\[{_IN}*\])*"
_TAG = r"(?:[^<>\n]|\n(?![ \t]*\n))*"
_DEST = r"(?:<[^<>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)"
_TITLE = r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*"
_LINE_TITLE = r"""(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*"""
# A tag cut off by the stretch's end (``\Z``) is judged as one: a link's "](…)" inside a tag is
# a stretch of its own.
_LINKS = re.compile(
    # a definition: nothing after its address but a title ("[S1]: She said" is a sentence)
    rf"(?P<definition>^[ ]{{0,3}}\[{_TEXT}\]:[ \t]*(?P<target>\S+){_LINE_TITLE}$)"
    rf"|(?P<image>!\[(?P<alt>{_TEXT})\](?P<source>\(\s*{_DEST}{_TITLE}\)|\[{_IN}*\])?)"
    rf"|(?P<link>\[(?P<text>{_TEXT})\]\(\s*(?P<dest>{_DEST}){_TITLE}\))"
    rf"|(?P<img><img\b{_TAG}(?:>|\Z))"
    r"|(?P<autolink><[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>)"
    rf"|(?P<tag><(?P<closing>/)?(?P<name>[A-Za-z][A-Za-z0-9-]*)\b{_TAG}(?:>|\Z))"
    # (a scheme is read from its word's first letter: once, not again from each letter on)
    r"|(?P<bare>(?:(?<![A-Za-z])[A-Za-z][A-Za-z0-9+.-]*://|(?<![\w.])www\.)[^\s<>]+)",
    re.MULTILINE | re.IGNORECASE,
)
# A link's "(url \"title\")", a stretch of its own (``answer.links_settle``).
_DESTINATION = re.compile(rf"\(\s*(?P<dest>{_DEST}){_TITLE}\)")
_ALT = re.compile(r"""\balt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.IGNORECASE)
_LOADS = re.compile(r"\b(?:src|srcset|poster|background|data|style|xlink:href)\s*=", re.I)
_HREF = re.compile(r"""\b(?:href|action|formaction)\s*=\s*["']?([^\s"'>]*)""", re.IGNORECASE)
_URL_GOES_ON = re.compile(r"[\w/?#&=%~+@-]")
_TRAILING = ".,:;!?*_~'\""  # punctuation after a bare address, not part of it (as GFM reads it)
# Elements that never take a closing tag.
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source"}
    | {"track", "wbr"}
)


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


@dataclass
class Render:
    given: str
    result: Unlinked = field(default_factory=lambda: Unlinked(""))
    # Per element name, its open tags in order: True for one removed, whose closing tag goes too.
    _open: dict[str, list[bool]] = field(default_factory=dict)

    def text(self, text: str, start: int = 0, end: int | None = None) -> str:
        end = len(text) if end is None else end
        out: list[str] = []
        for match in _LINKS.finditer(text, start, end):
            out.append(text[start : match.start()])
            out.append(self._one(match))
            start = match.end()
        out.append(text[start:end])
        return "".join(out)

    def destination(self, text: str, image: bool) -> str:
        """The ``(url "title")`` after a ``]``: kept for a link to an address given, else
        removed (with anything else in the parentheses); an image's always is."""
        found = _DESTINATION.fullmatch(text)
        if found and not image and given_url(found.group("dest").strip("<>"), self.given):
            return text
        if image:
            self.result.images += 1
            return ""
        return self._no()

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
            return self._tag(match)
        url, tail = _bare(whole)
        return whole if given_url(url, self.given) else self._no(REMOVED) + tail

    def _tag(self, match: re.Match[str]) -> str:
        """An HTML tag: removed when it loads something or links to an address not given, and
        so is the closing tag of one removed (its text stays)."""
        whole, name = match.group(0), match.group("name").lower()
        opened = self._open.setdefault(name, [])
        if match.group("closing") and opened and opened.pop():
            return ""
        href = _HREF.search(whole)
        removed = bool(_LOADS.search(whole) or (href and not given_url(href.group(1), self.given)))
        opens = whole.endswith(">") and not whole.endswith("/>") and name not in _VOID
        if opens and not match.group("closing"):
            opened.append(removed)
        # A tag kept may be none to a renderer ("<b https://…>" is text): its words are read.
        return self._no() if removed else whole[0] + self.text(whole[1:])

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
