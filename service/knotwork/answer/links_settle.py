"""Where a growing answer can be cut so that each stretch is held to the context on its own
(``answer.links``): the stretches an answer is read in, whole or streamed, and what each is.

Text is cut at a whitespace outside brackets, a link's ``(…)``, a tag's ``<…>`` and a line
opening with ``[`` (a definition's address may follow). A ``[`` holds the text back until its
``]``, a blank line, the end of its line (a link's text may go on past it: the line is sent
all the same), ``HELD_CHARS`` characters or a third bracket inside it (the link pattern reads
one ``[…]`` inside a link's text), whichever is first; then it is *released*: the text after
it is cut as any other, and a released ``![`` is read as ``! [``, never an image. The ``(…)``
after a ``]`` is read as CommonMark reads a link's destination, a stretch of its own judged
alone, whatever bracket the ``]`` closes; the ``:`` after a released bracket that opened its
line is one too, removed: that line defines no link. A ``(`` that holds no address after all
is read again as text (longer than ``REREAD_CHARS``: removed, as an address would be). The
last character is read only when the next has come (``](`` and ``<a`` are told by it), so the
stretches depend on the text, not on how it came.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HELD_CHARS = 64  # the longest a "[" holds the text after it back, unless it closes first
NESTED = 2  # brackets deeper than this are released: the link pattern reads one "[…]" inside
REREAD_CHARS = 256  # the longest "(…" read again as text once it turns out to hold no address
_TAG_OPENS = re.compile(r"[A-Za-z/!]")
TEXT, GONE, OPEN, LINK, IMAGE, DEFINITION = "text", "gone", "open", "link", "image", "definition"


@dataclass(frozen=True)
class _Bracket:
    at: int
    image: bool  # "![": an image's alt text
    line: bool  # opened its line: a definition's label, if ":" follows its "]"


@dataclass
class _Destination:
    """The ``(url "title")`` after a bracket's ``]``, read as CommonMark reads one: ``read``
    says True at its ``)``, False once the text cannot be one (``(see below`` is words)."""

    bracket: _Bracket
    close: int  # the "]"
    released: bool
    state: str = "start"
    depth: int = 0  # parentheses open in the address
    quote: str = ""  # what ends the title
    blank: bool = False  # the line so far is blank: a line break now ends the paragraph

    def read(self, char: str) -> bool | None:
        if char == "\n":
            if self.blank:
                return False
            self.blank = True
        elif char not in " \t":
            self.blank = False
        space = char in " \t\n"
        if self.state == "start" and not space:
            if char in "<)":
                self.state = "angle"
                return True if char == ")" else None
            self.state = "address"
        if self.state == "address":
            if space:
                self.state = "after"
            elif char == ")" and not self.depth:
                return True
            else:
                self.depth += {"(": 1, ")": -1}.get(char, 0)
        elif self.state == "angle":
            if char in "<\n":
                return False
            self.state = "after" if char == ">" else "angle"
        elif self.state == "title":
            self.state = "end" if char == self.quote else "title"
        elif self.state in ("after", "end") and not space:
            if self.state == "after" and char in "\"'(":
                self.state, self.quote = "title", ")" if char == "(" else char
                return None
            return char == ")"
        return None


@dataclass
class Settled:
    """The stretches of the text read so far, each ``(end, kind)``: ``TEXT``, ``GONE`` (an
    image's ``![`` and ``]``), ``OPEN`` (the ``[`` of a released ``![``), ``LINK``/``IMAGE``
    (the ``(…)`` after a bracket's ``]``) or ``DEFINITION`` (the ``:`` after a released one
    that opened its line)."""

    pieces: list[tuple[int, str]] = field(default_factory=list)
    _i: int = 0
    _open: list[_Bracket] = field(default_factory=list)  # not released, outermost first
    _released: list[_Bracket] = field(default_factory=list)
    _destination: _Destination | None = None
    _angle: bool = False
    _line_held: bool = True
    _blank: bool = True

    @property
    def cut(self) -> int:
        return self.pieces[-1][0] if self.pieces else 0

    @property
    def _held(self) -> bool:
        return bool(self._open or self._destination or self._angle)

    def _piece(self, end: int, kind: str = TEXT) -> None:
        if end > self.cut or kind != TEXT:
            self.pieces.append((end, kind))

    def _release(self) -> None:
        """The open brackets no longer hold the text back (``HELD_CHARS``, a line's end)."""
        for bracket in self._open:
            if bracket.image:
                self._piece(bracket.at)
                self._piece(bracket.at + 1, OPEN)
            self._line_held = self._line_held and not bracket.line
        self._released += self._open
        self._open = []

    def __call__(self, text: str, final: bool = False) -> int:
        """Reads what has come since the last call; ``final``: the text is complete, and the
        rest is a stretch of its own. Returns where the stretches end."""
        i = self._i
        while i < len(text) - 1 or (final and i < len(text)):
            i = self._read(text, i, text[i + 1] if i + 1 < len(text) else "")
            if final and i == len(text) and self._destination:  # "(" left open
                i = self._no_destination(self._destination, i)
                self._destination = None
        self._i = i
        if final:
            self._piece(len(text))
        return self.cut

    def _read(self, text: str, i: int, after: str) -> int:
        """Reads ``text[i]`` (``after`` is the next character) and returns the next index."""
        char = text[i]
        if self._destination:
            return self._in_destination(self._destination, i, char)
        if self._open and i - self._open[0].at >= HELD_CHARS:
            self._release()
        if char == "\n":
            self._line_end(i)
        elif char in " \t":
            if not (self._held or self._line_held):
                self._piece(i + 1)
        else:
            if self._line_held and self._blank:
                self._line_held = char == "["  # a definition, or the line is text
            line_opening = self._blank
            self._blank = False
            if char == "[":
                image = i > 0 and text[i - 1] == "!"
                self._open.append(_Bracket(i, image, line_opening))
                if len(self._open) > NESTED:
                    self._release()
            elif char == "]":
                return self._close(i, after)
            elif char == "<" and _TAG_OPENS.match(after):
                self._angle = True
            elif char == ">":
                self._angle = False
        return i + 1

    def _in_destination(self, found: _Destination, i: int, char: str) -> int:
        done = found.read(char)
        if done is None:
            return i + 1
        self._destination = None
        if not done:
            return self._no_destination(found, i)
        self._release()  # the brackets around a link are text, whatever closes them
        if found.released:
            self._piece(found.close + 1)
        elif found.bracket.image:  # the alt text stays, the rest goes
            self._piece(found.bracket.at - 1)
            self._piece(found.bracket.at + 1, GONE)
            self._piece(found.close)
            self._piece(found.close + 1, GONE)
        else:
            self._piece(found.close + 1)
        self._piece(i + 1, IMAGE if found.bracket.image else LINK)
        return i + 1

    def _no_destination(self, found: _Destination, i: int) -> int:
        """The ``(`` after ``found.close`` holds no address after all ("(see below"): what
        follows it is read again as text, or, past ``REREAD_CHARS``, removed (reading it again
        from every "](" in it would take the square of its length)."""
        if i - found.close <= REREAD_CHARS:
            return found.close + 2
        self._piece(found.close + 1)
        self._piece(i, LINK)
        self._blank = found.blank  # a blank line ended it: it ends the paragraph too
        return i

    def _line_end(self, i: int) -> None:
        if self._blank:  # a blank line closes what is open
            self._open, self._released, self._angle = [], [], False
        elif self._open:  # a bracket may go on past its line, but the line is sent
            self._release()
        if not self._held:
            self._piece(i + 1)
        self._line_held, self._blank = True, True

    def _close(self, i: int, after: str) -> int:
        if self._open:
            bracket = self._open.pop()
            if bracket.line and after != ":":
                self._line_held = False  # "[x] …" at a line's start defines nothing
            if after == "(":
                self._destination = _Destination(bracket, i, released=False)
                return i + 2
            return i + 1
        # A "]" no bracket here opened may close one a code span hides ("[`]`](url)"): the
        # address after it is judged all the same.
        bracket = self._released.pop() if self._released else _Bracket(i, False, False)
        if after == "(":
            self._destination = _Destination(bracket, i, released=True)
            return i + 2
        if bracket.line and after == ":":
            self._piece(i + 1)
            self._piece(i + 2, DEFINITION)
            return i + 2
        return i + 1
