"""An answer's citation markers with their headings cut as its ``citations`` are, whole
(``answer_text``) or streamed (``MarkerCut`` fed the token texts).

The answer marks each cited chunk as ``answer.cite_match.marker`` builds it from the chunk's
path and whole heading; the body's citations give the heading cut (``api.clipped``). Each marker
is rewritten as ``marker`` builds it from the cut citation, given the cut markers before it, so
a client finds every entry's marker by exact text with the README's rule applied to the body.
The text is read left to right and a marker is matched whole — the longest path, heading and
suffix (``]``, ``:49-51]``, ``:49-51 (2)]``) of a chunk that fits — never by a heading's start
alone, which also starts another heading's marker. A stream's text from a ``[`` that may still
begin a marker is held until the marker is complete or cannot be one, so a marker split across
tokens is sent once, cut, and the tokens add up to the cut answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from knotwork.answer.cite_match import Located, label, marker
from knotwork.api.clipped import clipped_heading
from knotwork.text.quoted import TEXT_CHARS

if TYPE_CHECKING:  # answering imports LlamaIndex; the schemas are needed before (tools/list)
    from knotwork.answer.respond import Answer

# What follows a marker's path and heading: "]", or its lines, numbered when taken twice.
_SUFFIX = re.compile(r"(?::(\d{1,10})-(\d{1,10})(?: \((\d{1,10})\))?)?\]")
# A suffix begun and not finished (held in a stream): "", ":4", ":49-5", ":49-51 (", …
_BEGUN = re.compile(r"(?::(?:\d{1,10}(?:-(?:\d{1,10}(?: (?:\((?:\d{1,10}\)?)?)?)?)?)?)?)?")


@dataclass(frozen=True)
class _Entry:
    path: str
    heading: str
    line_start: int
    line_end: int


class MarkerCut:
    """Rewrites the markers of ``entries`` (the hits an answer may cite, best first) in a text
    fed in pieces; each call returns the text now settled."""

    def __init__(self, entries: Iterable[Located]) -> None:
        self._bases: dict[str, list[_Entry]] = {}  # "[path#heading" → its chunks, best first
        for e in entries:
            entry = _Entry(e.path, e.heading, e.line_start, e.line_end)
            self._bases.setdefault(label(e.path, e.heading)[:-1], []).append(entry)
        self._longest_first = sorted(self._bases, key=len, reverse=True)
        # No heading cut: every marker stays as it is (the cut entries are the entries).
        self._active = any(len(e[0].heading) > TEXT_CHARS for e in self._bases.values())
        self._cut: dict[str, str] = {}  # a whole marker → its cut form, once met
        self._taken: list[str] = []  # the cut markers, in the order met
        self._held = ""

    def feed(self, text: str) -> str:
        return self._scan(text, final=False)

    def close(self) -> str:
        """The rest held, now that the text is complete."""
        return self._scan("", final=True)

    def _scan(self, text: str, final: bool) -> str:
        if not self._active:
            return text
        text, out, pos = self._held + text, [], 0
        stop = len(text)
        while (i := text.find("[", pos)) >= 0:
            found = self._at(text, i, final)
            if found is None:  # it may still become a marker: held from here
                stop = i
                break
            end, entry = found
            out += [text[pos:i], text[i:end] if entry is None else self._recut(text[i:end], entry)]
            pos = end
        out.append(text[pos:stop])
        self._held = text[stop:]
        return "".join(out)

    def _at(self, text: str, i: int, final: bool) -> tuple[int, _Entry | None] | None:
        """The end and chunk of the longest marker at the ``[`` at ``i`` (no chunk: the ``[``
        begins none); None while the text so far does not settle it (a longer may arrive)."""
        undecided = False
        for base in self._longest_first:
            if not text.startswith(base, i):
                if not final and len(text) - i < len(base) and base.startswith(text[i:]):
                    undecided = True
                continue
            after = i + len(base)
            suffix = _SUFFIX.match(text, after)
            entry = self._entry(base, suffix) if suffix else None
            if entry is not None and suffix is not None:
                return None if undecided else (suffix.end(), entry)
            begun = _BEGUN.match(text, after)
            if not final and begun is not None and begun.end() == len(text):
                undecided = True
        return None if undecided else (i + 1, None)

    def _entry(self, base: str, suffix: re.Match[str]) -> _Entry | None:
        """The chunk a marker names: the best of its label, or the one of its lines."""
        chunks = self._bases[base]
        if suffix.group(1) is None:
            return chunks[0]
        lines = (int(suffix.group(1)), int(suffix.group(2)))
        return next((c for c in chunks if (c.line_start, c.line_end) == lines), None)

    def _recut(self, whole: str, entry: _Entry) -> str:
        if whole not in self._cut:
            cut = _Entry(
                entry.path, clipped_heading(entry.heading), entry.line_start, entry.line_end
            )
            self._cut[whole] = marker(cut, self._taken)
            self._taken.append(self._cut[whole])
        return self._cut[whole]


def answer_text(result: Answer) -> str | None:
    """The answer with each citation's marker built from its cut heading, as ``citations``
    gives it, so a client still finds each entry's marker in it by exact text."""
    if result.answer is None:
        return None
    cut = MarkerCut(result.citations)
    return cut.feed(result.answer) + cut.close()
