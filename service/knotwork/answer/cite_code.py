"""Where an answer's code is, so that the citation check leaves it as written: fenced blocks and
code spans, read as CommonMark reads them where that is cheap.

A fence at a line's start (the note parser's rule, ``text.markdown.step``: indented, in a
blockquote or on a list item's first line too) runs to its closing fence or the answer's end. A
run of backticks opens a code span closed by the next run of exactly its length, on its line or
a later one of its paragraph: never past a blank line, a line that starts a block (a list item,
a heading, a break, a deeper quote: ``answer.cite_paragraph``) or a fence that opens; a run that
none closes is backticks as written. One liberty: a run opened mid-line is closed by a run of
its length on a line of its own ("Run this: ```python" … "```"), where CommonMark would open a
fence, as models mean it.

Whether a run is closed depends on what follows it, so a streamed answer's map leaves undecided
what the text so far does not settle (a run not closed yet, a last line that may still open a
fence or start a block): the scanner waits there, and so decides as it does for the whole
answer. The map of a longer text of the stream goes on from where the last one stopped being
sure.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from knotwork.answer.cite_paragraph import Paragraph, ends, following
from knotwork.text.markdown import step

_TICKS = re.compile(r"`+")
_BREAK = re.compile(r"\r\n|\r|\n")  # as the note parser breaks lines (text.markdown.file_lines)
_NONE = -1  # no closer: the run is backticks as written
_OPEN = -2  # no closer yet, and the text so far does not say whether one comes
# Where a reading goes on: a line's start, the fence open there, where its text resumes after a
# span, how many spans come before, the paragraph the line before is in (or the line's, mid-line).
Resume = tuple[int, str, int, int, Paragraph | None]
_FROM_START: Resume = (0, "", 0, 0, None)


@dataclass(frozen=True)
class _Line:
    start: int
    stop: int  # where its line break (or the text) begins
    next: int | None  # the next line's start; None for the text's last line
    partial: bool  # the last line while more text may come


def _line(text: str, start: int, final: bool, no_break_before: int = 0) -> _Line:
    """The line at ``start``; its text holds no line break before ``no_break_before``."""
    brk = _BREAK.search(text, max(start, no_break_before - 1))  # a "\r" may be "\r\n"'s
    if brk is None or (not final and brk.group() == "\r" and brk.end() == len(text)):
        return _Line(start, len(text), None, not final)  # a last "\r" may be half of "\r\n"
    return _Line(start, brk.start(), brk.end(), False)


@dataclass
class CodeMap:
    """The code of one text: sorted, disjoint ``(start, end)`` spans; from ``settled`` on the
    text so far does not tell. ``resume`` is where a longer text's map goes on from (``Resume``),
    and ``searched`` where the search for a run's closer does: a line's start and the offset
    from which to read it (what comes before holds none), so that a run none closes yet is not
    read again from its start as the text grows."""

    spans: list[tuple[int, int]]
    settled: int
    resume: Resume = _FROM_START
    searched: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    unbroken: tuple[int, int] = (0, 0)  # a line's start, and where its text so far ends

    def at(self, i: int) -> bool | None:
        """Whether ``text[i]`` is code; None when the text so far does not settle it."""
        k = bisect.bisect_right(self.spans, (i, i))
        if any(start <= i < end for start, end in self.spans[max(k - 1, 0) : k + 1]):
            return True
        return None if i >= self.settled else False


def code_map(text: str, final: bool, since: CodeMap | None = None) -> CodeMap:
    """The code of ``text``; ``final`` when no more of it will come. ``since``: the map of a
    text this one extends, not final, to go on from (in place: it is not to be read after)."""
    start = since.resume if since else _FROM_START
    if start == _FROM_START and "`" not in text and "~~" not in text:
        return CodeMap([], len(text) + 1)  # most answers: no code at all
    return _Reader(text, final, since).read(start[0], start[1], start[2])


class _Reader:
    """One reading of a text into its map, from the start or from where ``since`` left off."""

    def __init__(self, text: str, final: bool, since: CodeMap | None) -> None:
        self.text, self.final = text, final
        # since's spans go on in place (as its ``searched``): a map is read from once
        self.map = CodeMap(since.spans if since else [], len(text) + 1)
        self.para = since.resume[4] if since else None  # the paragraph the line read is in
        if since:
            self.map.searched, self.map.unbroken = since.searched, since.unbroken
            del self.map.spans[since.resume[3] :]

    def read(self, start: int, fence: str, resume: int) -> CodeMap:
        spans = self.map.spans
        while True:
            line = self._line(start)
            self.map.resume = (start, fence, resume, len(spans), self.para)
            if resume <= line.start:  # not the rest of a line a span closed on
                before, body = fence, self.text[line.start : line.stop]
                belongs, fence = step(fence, body)
                if belongs and belongs != before and line.partial:
                    return self._unsure(line.start)  # a fence opening, unless a "`" comes
                self.para = None if belongs else following(self.para, body)
                if belongs:
                    spans.append((line.start, line.stop))
                    resume = -1
            if resume >= 0:
                found = self._spans_in(line, max(line.start, resume))
                if isinstance(found, tuple):
                    start, resume = found  # a span closed on a later line: text resumes there
                    continue
                if found >= 0:
                    return self._unsure(found)
            if line.next is None:
                return self.map
            start, resume = line.next, line.next

    def _line(self, start: int) -> _Line:
        """The line at ``start``, the last one read from where the search for its end stopped."""
        line_start, read = self.map.unbroken
        line = _line(self.text, start, self.final, read if line_start == start else start)
        if line.next is None:
            self.map.unbroken = (start, len(self.text))
        return line

    def _unsure(self, settled: int) -> CodeMap:
        self.map.settled = settled
        return self.map

    def _spans_in(self, line: _Line, pos: int) -> tuple[int, int] | int:
        """Adds the spans opened on ``line`` from ``pos`` on. Returns the line start and offset
        where the text resumes after one that closed on a later line, the offset from which
        nothing is settled, or -1 when the line is done."""
        text = self.text
        while run := _TICKS.search(text, pos, line.stop):
            start, end = run.span()
            if end == len(text) and not self.final:
                return start  # the run may grow
            lead = start
            while lead > pos and text[lead - 1] == "\\":
                lead -= 1
            opener = start + (start - lead) % 2  # an odd run of backslashes escapes one backtick
            closer = self._closer(line, end, end - opener) if end > opener else _NONE
            if closer == _OPEN:
                if lead > line.start:  # the line is no fence, its paragraph told (a "`" in
                    # it): a longer text goes on from this run, its backslashes too
                    self.map.resume = (line.start, "", lead, len(self.map.spans), self.para)
                return opener
            pos = end
            if isinstance(closer, tuple):
                self.map.spans.append((opener, closer[1]))
                if closer[0] != line.start:
                    return closer
                pos = closer[1]
            # Settled up to here, and the line is no fence: a longer text goes on from here.
            self.map.resume = (line.start, "", pos, len(self.map.spans), self.para)
        return -1

    def _closer(self, line: _Line, pos: int, size: int) -> tuple[int, int] | int:
        """The start of the line and the end of the run of ``size`` backticks that closes a
        span opened on ``line`` before ``pos``: ``_NONE`` if the paragraph ends (a blank line,
        a line that starts a block, a fence) or the text does first, ``_OPEN`` if the text so
        far does not say."""
        text, key = self.text, (pos, size)
        start, pos = self.map.searched.get(key, (line.start, pos))
        para = self.para or Paragraph((), heading=False)
        while True:
            here = line if start == line.start else self._line(start)
            if here is not line:
                if para.heading:
                    return _NONE  # a heading is a line of its own
                pos = here.start
                body = text[here.start : here.stop]
                marker, _ = step("", body)
                if marker or ends(para, body):
                    if here.partial:  # "- ``" may yet be "- ```", "- ```x" "- ```x`"
                        return self._open(key, here, line, here.start)
                    if marker == "`" * size:  # a fence would open here, but of the span's run
                        return here.start, here.start + body.index(marker) + size
                    return _NONE  # the paragraph ends, or a fence opens
            for run in _TICKS.finditer(text, pos, here.stop):
                if run.end() == len(text) and not self.final:
                    return self._open(key, here, line, run.start())  # the run may grow
                if run.end() - run.start() == size:
                    return here.start, run.end()
            if here.partial:
                return self._open(key, here, line, here.stop)
            if here.next is None:
                return _NONE
            start = here.next

    def _open(self, key: tuple[int, int], here: _Line, line: _Line, read: int) -> int:
        """No closer yet: what comes before ``here`` (after the opener), and on the opener's
        line before ``read``, is not searched again for this run when the text grows. A later
        line is read again from its start: what starts it may end the paragraph yet."""
        self.map.searched[key] = (here.start, read if here is line else here.start)
        return _OPEN
