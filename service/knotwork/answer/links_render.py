"""How one stretch of an answer is held to the context (``answer.links`` says the rules):
images made their alt text, addresses the prompt did not give removed, with the tags that load
or link something and the closing tags of those. A ``Render`` keeps, across the stretches of
one answer, what it removed and the tags removed whose closing tag is still to come."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from knotwork.answer.cite_code import CodeMap
from knotwork.answer.links_tags import (
    SET_ATTRS,
    TagScan,
    leads_elsewhere,
    no_image_open,
    set_values,
)
from knotwork.plural import counted

REMOVED = "(link removed)"  # stands for a bare address or ``<url>`` the notes did not give
# Brackets, tags and their quoted values end at a blank line, as Markdown reads them.
_NL = r"\n(?![ \t]*\n)"
_WS = rf"(?:[ \t]|{_NL})"
# A tag as CommonMark reads one: a name, then attributes whose quotes pair up inside the tag
# ("<dyn Error + 'static>" and "<max, the server's" are text, not tags).
_VALUE = rf"""(?:"(?:[^"\n]|{_NL})*"|'(?:[^'\n]|{_NL})*'|[^\s"'=<>`]+)"""
_ATTR = rf"(?:{_WS}+[A-Za-z_:][A-Za-z0-9_.:-]*(?:{_WS}*={_WS}*{_VALUE})?)"
_TAG_BODY = (
    rf"(?:(?P<closing>/)?(?P<name>[A-Za-z][A-Za-z0-9-]*)(?:(?(closing)|{_ATTR}*+)){_WS}*/?>)"
)
_TAG_ANY = rf"(?:/?[A-Za-z][A-Za-z0-9-]*(?:{_ATTR}*+){_WS}*/?>)"  # the same, unnamed groups
# Inside a link's text a tag is read whole first: a "](" in its quotes splits no tag.
_IN = rf"(?:<{_TAG_ANY}|<(?!{_TAG_ANY})|[^\[\]\n<]|{_NL})"
_TEXT = rf"(?:{_IN}|\[{_IN}*\])*"
_DEST = r"(?:<[^<>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)"
_TITLE = r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*"
# What may open a line before a definition: a quote's ">", a list item's marker.
_LEAD = r"(?P<lead>[ \t]*(?:(?:>|[-+*]|\d{1,9}[.)])[ \t]*)*)"
_ADDRESS_ATTRS = r"href|action|formaction|ping|cite|longdesc"
# What loads something (a tag with one goes whatever its value).
_LOAD_ATTRS = (
    r"src|srcset|imagesrcset|srcdoc|lowsrc|dynsrc|poster|background|data|style|xlink:href"
    r"|manifest|codebase|archive|usemap"
)
# An attribute that links or loads, out of any tag Markdown reads: in HTML's reading a tag goes
# on past a blank line in its quotes, and its unquoted values may hold "<", so "href=//x" there
# may be in one (as a browser does), judged where a browser's start tag is open (``TagScan``).
# Its spaces hold a stream.
_ANY_ATTR = rf"(?<![\w:.-])(?:{_ADDRESS_ATTRS}|{_LOAD_ATTRS}|{SET_ATTRS})"
ATTR_OPEN = re.compile(rf"{_ANY_ATTR}[ \t]*(?P<eq>=[ \t]*)?$", re.IGNORECASE)
_LINKS = re.compile(
    # a definition, its address maybe on the next line: nothing after it but a title
    # ("[S1]: She said" and "[Bob.md#Bob]: Bob (CFO) runs ops." are sentences)
    rf"(?P<definition>^{_LEAD}\[{_TEXT}\]:[ \t]*(?:\n[ \t]*(?:>[ \t]*)*)?(?P<target>\S+)"
    r"""(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*$)"""
    rf"|(?P<image>!\[(?P<alt>{_TEXT})\](?P<source>\(\s*{_DEST}{_TITLE}\)|\[{_IN}*\])?)"
    rf"|(?P<link>\[(?P<text>{_TEXT})\]\(\s*(?P<dest>{_DEST}){_TITLE}\))"
    # the "](url)" of a "[" sent in an earlier stretch
    rf"|(?P<tail>\]\(\s*(?P<tail_dest>{_DEST}){_TITLE}\))"
    r"|(?P<autolink><[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>)"
    rf"|(?P<tag><{_TAG_BODY})"
    # not a tag to Markdown, but one to an HTML block's reader, and it links or loads
    rf"|(?P<loose></?[A-Za-z](?:[^<>\n]|{_NL})*?{_ANY_ATTR}\s*=(?:[^>\n]|{_NL})*>)"
    rf"|(?P<attr>{_ANY_ATTR}[ \t]*=[ \t]*"
    r"""(?P<value>"[^"\s]*"?|'[^'\s]*'?|[^\s"'<>`]*))"""
    r"|(?P<bare>(?:(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://|(?<![\w.])www\.)[^\s<>`|]+)",
    re.MULTILINE | re.IGNORECASE,
)
# A definition's target that reads as an address (a path, a scheme, a domain, <…>), not a word.
_ADDRESS_LIKE = re.compile(r"^<|[/:@?=&%]|\.[A-Za-z0-9]|^www\.", re.IGNORECASE)
_ALT = re.compile(r"""\balt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.IGNORECASE)
_LOADS = re.compile(rf"\b(?:{_LOAD_ATTRS})\s*=", re.IGNORECASE)  # in a tag ("data-src=" too)
_HREF = re.compile(
    rf"""\b(?:{_ADDRESS_ATTRS})\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]*))""", re.IGNORECASE
)
_URL_GOES_ON = re.compile(r"[\w/?#&=%~+@-]")
_TRAILING = ".,:;!?*_~'\""  # punctuation after a bare address, not part of it (as GFM reads it)
_VOID = frozenset(  # elements that take no closing tag
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param"}
    | {"source", "track", "wbr"}
)
# Code keeps a link whose address is none ("handlers[event](payload)"), its brackets hidden from
# the passes after the first (which read no code) by these, never in an answer (``HIDDEN``).
_HIDE, _SHOW = str.maketrans("[]", "\ufdd0\ufdd1"), str.maketrans("\ufdd0\ufdd1", "[]")
HIDDEN = str.maketrans("\ufdd0\ufdd1", "\ufffd\ufffd")
_NO_ADDRESS = re.compile(r"(?!www\.)[^:/\\&%\s<>]*", re.IGNORECASE)  # no scheme, host, entity
_PASSES = 8  # a removal may join its sides into something to remove: read again, this often


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
    _first: bool = True  # the pass reading a stretch as written (not what removals left)
    _code: CodeMap | None = None  # where the text read as written is code
    _as_written: bool = False  # the next ``text`` reads the answer itself (its offsets)
    _inside: bool = False  # reading a match that starts in code
    _tags: TagScan = field(default_factory=TagScan)  # the answer's start tags, as written
    _seed: str = ""  # the ``TagScan`` state where the text read next starts
    _in_tag: bool = False  # reading a match that starts in a start tag a browser reads

    def stretch(
        self, text: str, start: int, end: int, final: bool, code: CodeMap | None = None
    ) -> str:
        """``text[start:end]``, one stretch, read again until nothing more goes: what a removal
        joins ("[a]<img src=x>(//elsewhere)") is read as a renderer would read it. One that is
        not the last leaves no ``![`` open: what closes it later makes no image."""
        before = text[start - 1] if start else "\n"
        seed = self._tags.advance(text, start)
        self._first, self._code, self._as_written = True, code, True
        out = self.text(text, start, end)
        self._tags.advance(text, end)
        self._first, self._code = False, None
        for _ in range(_PASSES):
            self._seed = seed
            again = self.text(before + out, 1)
            if again == out:
                break
            out = again
        self._first = True
        return (out if final else no_image_open(out)).translate(_SHOW)

    def text(self, text: str, start: int = 0, end: int | None = None) -> str:
        end = len(text) if end is None else end
        as_written, self._as_written = self._as_written, False
        tags = self._tags if as_written else TagScan(self._seed)
        tags.pos = tags.pos if as_written else start
        out: list[str] = []
        for match in _LINKS.finditer(text, start, end):
            out.append(text[start : match.start()])
            was, was_tag, seed = self._inside, self._in_tag, self._seed
            self._seed = tags.advance(text, match.start())
            self._in_tag = was_tag or tags.open
            at = self._code.at(match.start()) if as_written and self._code else False
            self._inside = was or bool(at)
            out.append(self._one(match))
            self._inside, self._in_tag, self._seed = was, was_tag, seed
            opening = match.lastgroup in ("tag", "loose") and match.group(0)[1] != "/"
            if opening and out[-1] != match.group(0):
                # A tag removed may have been in one a renderer reads on past it ("<a href=x
                # <img src=y> title=z href=//elsewhere>"): what follows is read as in a tag.
                tags.state, tags.pos = "b", match.end()
            start = match.end()
        out.append(text[start:end])
        return "".join(out)

    def _one(self, match: re.Match[str]) -> str:
        kind, whole = match.lastgroup, match.group(0)
        if kind == "image" and match.group("source") is None:
            # "![x]" is an image only where "[x]:" defines it; "August![S1]" is a sentence
            if self._inside:  # Rust's "vec![1]"
                return f"![{self.text(match.group('alt'))}]".translate(_HIDE)
            return f"! [{self.text(match.group('alt'))}]"
        if kind == "image" and self._kept(match.group("source")[1:-1]):
            return f"![{self.text(match.group('alt'))}]{match.group('source')}".translate(_HIDE)
        if kind == "image":
            self.result.images += 1
            return self.text(match.group("alt"))
        if kind == "link":
            inner, dest = self.text(match.group("text")), match.group("dest").strip("<>")
            if given_url(dest, self.given) or self._kept(dest):
                kept = f"[{inner}]{whole[len(match.group('text')) + 2 :]}"
                return kept.translate(_HIDE) if self._inside else kept
            self.result.links += 1
            return f"[{inner}]"
        if kind == "tail":  # its "[" is in an earlier stretch, or nested deeper than read
            if self._kept(match.group("tail_dest")):
                return whole.translate(_HIDE)
            if given_url(match.group("tail_dest").strip("<>"), self.given):
                return "]" + self.text(whole[1:])
            return self._no("]")
        if kind == "definition":
            if given_url(match.group("target").strip("<>"), self.given):
                return whole
            if _ADDRESS_LIKE.search(match.group("target")):
                return self._no(match.group("lead").rstrip(" \t"))
            if self._inside:  # as written, its text read
                label = match.end("lead") - match.start() + 1
                colon = whole.rfind("]:", 0, match.start("target") - match.start())
                kept = whole[:label] + self.text(whole[label:colon]) + whole[colon:]
                return kept.translate(_HIDE)
            # A word, not an address: the line is a model's "[Bob.md#Bob]: CFO" list, so
            # its text stays, the definition broken by an escaped colon.
            colon = whole.rfind("]:", 0, match.start("target") - match.start()) + 1
            return self._no(whole[:colon] + "\\" + whole[colon:])
        if kind == "autolink":
            return whole if given_url(whole[1:-1], self.given) else self._no(REMOVED)
        if kind in ("tag", "loose"):
            return self._tag(match)
        if kind == "attr":
            return self._attr(match)
        url, tail = _bare(whole)
        return whole if given_url(url, self.given) else self._no(REMOVED) + tail

    def _tag(self, match: re.Match[str]) -> str:
        """An HTML tag: removed when it loads something or links to an address not given, and
        so is the closing tag of one removed; its text stays."""
        whole = match.group(0)
        name = re.match(r"</?([A-Za-z][A-Za-z0-9-]*)", whole)
        closing, key = whole.startswith("</"), name.group(1).lower() if name else ""
        opened = self._open.setdefault(key, [])
        if closing and match.lastgroup == "tag":
            if self._first and opened and opened.pop():
                return ""
            return whole
        img = key == "img" and match.lastgroup == "tag"
        hrefs = [next(g for g in h.groups() if g is not None) for h in _HREF.finditer(whole)]
        removed = (
            img
            or bool(_LOADS.search(whole))
            or any(not given_url(h, self.given) for h in hrefs)
            or any(self._elsewhere(name, value) for name, value in set_values(whole))
        )
        if self._first and not whole.endswith("/>") and key not in _VOID and not closing:
            opened.append(removed)
        if img:
            self.result.images += 1
            alt = _ALT.search(whole)
            text = next((g for g in alt.groups() if g is not None), "") if alt else ""
            return text.replace("<", "").replace(">", "")  # its text opens no tag
        if removed:
            return self._no()
        # a loose one kept is text: its words are read as any
        return whole if match.lastgroup == "tag" else "<" + self.text(whole[1:])

    def _kept(self, dest: str) -> bool:
        """Whether a link or image in code keeps ``dest``, no address: code stays as written
        where what it holds can lead nowhere else ("handlers[event](payload)")."""
        dest = dest.strip().split(None, 1)[0] if dest.strip() else ""
        return self._inside and _NO_ADDRESS.fullmatch(dest.strip("<>")) is not None

    def _attr(self, match: re.Match[str]) -> str:
        """An attribute that links or loads, out of any tag Markdown reads but in one a browser
        does: its value goes when it may lead elsewhere, the attribute too when it has none yet
        (what follows may be it). Out of a browser's tag it is text, its words read as any."""
        value, prefix = match.group("value"), match.group(0)[: match.start("value") - match.start()]
        if not self._in_tag:
            return prefix + self.text(value)
        quote = value[:1] if value[:1] in ('"', "'") else ""
        closed = not quote or (len(value) > 1 and value.endswith(quote))  # else it goes on
        inner = value[1:-1] if quote and closed else value
        if not value:  # its value is on the next line, or opens with "<" or "`": a browser's
            return self._no()
        if closed and not self._elsewhere(prefix.split("=")[0], inner):
            return prefix + self.text(value)
        return self._no(prefix + REMOVED)

    def _elsewhere(self, name: str, value: str) -> bool:
        """Whether the attribute ``name``'s ``value`` may lead to an address not given."""
        return not given_url(value, self.given) and leads_elsewhere(name, value)

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
