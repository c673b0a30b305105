"""How the answer's link filter reads an HTML tag as it streams (``answer.links``): as
CommonMark reads one, or, in an HTML block, as any ``<…>`` to its ``>`` outside quotes; where a
browser's start tag is open (``TagScan``); which attribute values may lead elsewhere; and what
a stretch sent may leave open (a tag, a ``![``)."""

from __future__ import annotations

import re

# What may set an address: an SVG animation's values, a refresh (``http-equiv``, ``content``);
# judged by its value ("<animate from=0 to=1>" and a CSP ``<meta>`` stay).
SET_ATTRS = r"values|to|from|by|http-equiv|content"
_SETS = re.compile(
    rf"""(?<![\w:.-])({SET_ATTRS})\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*))""", re.IGNORECASE
)
# A value that may lead elsewhere: a scheme, "//" (or "\\", which browsers read alike), an
# entity that may decode to either.
_ELSEWHERE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|[/\\]{2}|&|www\.", re.IGNORECASE)
# The same for a style (a ``url(``, ``image-set(``, an escape or entity; "color:" is no scheme),
# a refresh and its ``content``.
_JUDGED = {
    "style": re.compile(r"url|image|expression|[\\&@]|//", re.IGNORECASE),
    "http-equiv": re.compile(r"refresh|&", re.IGNORECASE),
    "content": re.compile(r"url|&|[/\\]{2}", re.IGNORECASE),  # "0;//x" refreshes too
}

_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_NAME = _LETTERS | frozenset("0123456789-")
_ATTR_OPENS = _LETTERS | frozenset("_:")
_ATTR = _NAME | frozenset("_.:")
OPENS = _LETTERS | {"/"}
_SPACE = frozenset(" \t\n")
QUOTED = ("'", '"', "lax'", 'lax"')
CLOSED = ">"  # a tag's state once its ">" is read
_NOT_UNQUOTED = _SPACE | frozenset("\"'=<>`")


def read_tag(state: str, outer: list[str], char: str, after: str) -> str:
    """The state of a tag being read (``state``, not "") once ``char`` follows, ``after`` the
    character after it; "" once it closed or can be none. A tag inside a tag ("<a href=x <img
    src=y> title=z>") is read to its end and the outer one (kept in ``outer``) on after it:
    should the inner one go, the outer one may close."""
    if char == "<" and after and after in OPENS and state not in QUOTED:
        outer.append(state)
        return "lax" if state.startswith("lax") else "<"
    state = tag_step(state, char)
    while state in ("", CLOSED) and outer:
        was = outer.pop()
        state = was if state == CLOSED else tag_step(was, char)
    return "" if state == CLOSED else state


def _tag_left_open(text: str, lax: bool) -> int:
    """Where in ``text`` a tag opens that is still open at its end (-1: none), read as
    ``answer.links`` reads tags (``lax``: as in an HTML block)."""
    state, start, outer = "", -1, list[str]()
    for i, char in enumerate(text):
        after = text[i + 1 : i + 2]
        if state:
            state = read_tag(state, outer, char, after)
        elif char == "<" and after and after in OPENS:
            state, start = ("lax" if lax else "<"), i
    return start if state else -1


def no_tag_left_open(text: str, out: str) -> str:
    """``out``, what is sent of the stretch ``text``, with a ``<`` made ``&lt;`` where what
    was removed left a tag open that the stretch had closed (``<img <img> />``): a later
    stretch would close it."""
    for lax in (False, True):
        start = _tag_left_open(out, lax)
        if start != -1 and _tag_left_open(text, lax) == -1:
            out = f"{out[:start]}&lt;{out[start + 1 :]}"
    return out


def no_image_open(out: str) -> str:
    """``out``, a stretch sent, with each ``![`` it leaves unclosed made ``! [``."""
    opened: list[int] = []
    for i, char in enumerate(out):
        if char == "[":
            opened.append(i)
        elif char == "]" and opened:
            opened.pop()
    for i in reversed(opened):
        if i and out[i - 1] == "!":
            out = f"{out[:i]} {out[i:]}"
    return out


def tag_step(state: str, char: str) -> str:
    """What is read of a tag once ``char`` follows: ``CLOSED``, or "" once it can be none. In an
    HTML block any ``<…>`` is one (to its ``>`` outside quotes); elsewhere only one whose
    attributes are well formed, as CommonMark reads it (``answer.links_render``)."""
    if state.startswith("lax"):
        quote = state[3:]
        if quote:
            return "lax" if char == quote else state
        return CLOSED if char == ">" else "lax" + char if char in "\"'" else state
    if state in ('"', "'"):  # in a quoted value
        return "quoted" if char == state else state
    if char == ">" and state not in ("<", "</", "="):
        return CLOSED
    space = char in _SPACE
    if state == "<":
        return "name" if char in _LETTERS else "</" if char == "/" else ""
    if state == "</":
        return "end" if char in _LETTERS else ""
    if state == "end":  # a closing tag's name, then spaces
        return state if char in _NAME or space else ""
    if state == "/":
        return ""
    if state == "=":
        if space:
            return state
        return char if char in "\"'" else "unquoted" if char not in _NOT_UNQUOTED else ""
    if state == "unquoted" and char not in _NOT_UNQUOTED:
        return state
    if (state == "name" and char in _NAME) or (state == "attr" and char in _ATTR):
        return state
    if space:
        return "between" if state != "attr" else "after"
    if char == "/":
        return "/"
    if state in ("between", "after") and char in _ATTR_OPENS:
        return "attr"
    if state in ("attr", "after") and char == "=":
        return "="
    return ""


# A browser's reading of start tags (the HTML tokenizer's states, few kept): "" outside any,
# "n" a tag's name, "b" before an attribute, "a" its name, "=" before its value, "u" an
# unquoted value, a quote inside a quoted one, "q" just after one.
_IN_TAG = frozenset("nba=uq\"'")


class TagScan:
    """Whether a start tag is open at a point of a text as a browser reads it (quote-aware,
    linear): only there is ``name=value`` an attribute ("from=T10:00" in prose is text)."""

    def __init__(self, state: str = "") -> None:
        self.state, self.pos = state, 0

    @property
    def open(self) -> bool:
        return self.state in _IN_TAG

    def advance(self, text: str, upto: int) -> str:
        """Reads ``text`` from where it stopped to ``upto``; the state there."""
        state = self.state
        for i in range(self.pos, upto):
            char = text[i]
            if state in ('"', "'"):
                state = "q" if char == state else state
            elif not state:
                state = (
                    "n" if char == "<" and text[i + 1 : i + 2] in _LETTERS else ""
                )  # "" is in no set
            elif char == ">":
                state = ""
            elif char in _SPACE:
                state = "=" if state == "=" else "b"
            elif state == "=":
                state = char if char in "\"'" else "u"
            elif char == "=" and state in ("a", "b"):
                state = "="
            elif state in ("b", "q"):
                state = "a"
        self.state, self.pos = state, max(self.pos, upto)
        return state


def leads_elsewhere(name: str, value: str) -> bool:
    """Whether the attribute ``name``'s ``value`` may lead to an address (a given one too)."""
    return _JUDGED.get(name.strip().lower(), _ELSEWHERE).search(value) is not None


def set_values(tag: str) -> list[tuple[str, str]]:
    """The attributes of ``tag`` that may set an address (``SET_ATTRS``), with their values."""
    found = _SETS.finditer(tag)
    return [(m.group(1), next(g for g in m.groups()[1:] if g is not None)) for m in found]
