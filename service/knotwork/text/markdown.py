"""Where a note's fenced code blocks and headings are: one rule for the parser, the chunker and
mentions.

A fence opens with a run of three or more backticks or tildes (after indentation or a
blockquote's ``>``); a backtick run's info string holds no backtick, else the line is inline
code. It closes at a line holding only a run of the same character at least as long. A fence
left open runs to the end of the note, unless it opened on a list item: then it also ends
where the item ends, at the first line (not blank) indented less than the item's content, as
CommonMark ends a container's blocks. Text inside is code: no headings, links, tags, dates or
mentions are read there. Obsidian's ``%%comments%%`` outside code hide their headings, links and
tags too (``mask_comments``), not their words.

The state between lines is a string: "" outside a fence, else the opening run, led for a
fence opened on a list item by as many spaces as the item's content is indented, for one opened
in a blockquote or callout by a '>' per level (it ends where the quote does); the chunks keep it
as ``Chunk.fence``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

_FENCE = re.compile(r"^[ \t>]*(`{3,}|~{3,})(.*)$")
# A fence may also open on a list item's first line ("- ```bash", "1. ~~~"), as Obsidian renders
# it; such a line never closes one (inside a fence it is code), and its info string holds no
# fence character ("- ~~~old~~~ new" is struck-through text).
_LIST_FENCE = re.compile(r"^[ \t>]*(?:[-+*]|\d{1,9}[.)])[ \t]+(`{3,}|~{3,})([^`~]*)$")
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*)$")
_BREAK = re.compile(r"\r\n|\r|\n")
_TICKS = re.compile(r"`+")
# A link as a span of a line: a wikilink or embed, or a Markdown link whose destination may hold
# one level of parentheses. What mentions mask (text.keys) and what a chunk's cut must not
# split (ingest.chunk). No '[' inside, as the parser reads links: linear on a run of brackets.
LINK = r"!?\[\[[^\[\]\n]*\]\]|!?\[[^\[\]\n]*\]\((?:[^()\n]|\([^()\n]*\))*\)"


def file_lines(text: str) -> list[str]:
    """The text's lines as a file's line numbers count them: broken at CR LF, CR and LF only.
    ``str.splitlines`` also breaks at U+2028, U+2029, U+0085, FF, VT and FS/GS/RS, which
    Markdown and editors keep inside a line: every line number after one would be off."""
    lines = _BREAK.split(text)
    if lines[-1] == "":
        lines.pop()  # a final line break ends the last line; it starts none
    return lines


def atx_heading(line: str) -> tuple[int, str] | None:
    """An ATX heading's level and text, without a closing run of '#' (``# Learning C#`` keeps
    its '#': the run must follow a space); None for any other line. The one rule for the parser
    and the chunker, in linear time (a regex that trims the run itself backtracks on a line of
    many spaces)."""
    match = _ATX.match(line)
    if match is None:
        return None
    text = match.group(2).strip()
    bare = text.rstrip("#")
    if bare != text and (not bare or bare[-1] in " \t"):
        text = bare.strip()
    return (len(match.group(1)), text) if text else None


def _marker(line: str) -> tuple[str, str] | None:
    if "``" not in line and "~~" not in line:
        return None
    match = _FENCE.match(line)
    return (match.group(1), match.group(2)) if match else None


def step(fence: str, line: str) -> tuple[str, str]:
    """(the fence ``line`` belongs to, the fence open after it), given the one open before."""
    marker = _marker(line)
    if fence:
        run, rest = marker or ("", "")
        own = fence.lstrip(" >")
        if run[:1] == own[0] and len(run) >= len(own) and not rest.strip():
            return fence, ""  # closed, however indented (a list item's fence closed at column 0)
        if not _item_ended(fence, line) and not _quote_ended(fence, line):
            return fence, fence
    if marker is None and ("``" in line or "~~" in line) and (listed := _LIST_FENCE.match(line)):
        return listed.group(1), " " * _columns(line[: listed.start(1)]) + listed.group(1)
    if marker and not (marker[0][0] == "`" and "`" in marker[1]):
        depth = _quotes(line)  # opened in a blockquote or callout: it ends with the quote
        return marker[0], ">" * depth + marker[0]
    return "", ""


def _quotes(line: str) -> int:
    """How many blockquote markers ('>') lead the line."""
    return line[: len(line) - len(line.lstrip(" \t>"))].count(">")


def _quote_ended(fence: str, line: str) -> bool:
    """Whether ``line`` ends the blockquote a fence opened in (``fence`` led by a '>' per
    level): a line with fewer markers, blank or not, as CommonMark ends the quote's blocks."""
    depth = len(fence) - len(fence.lstrip(">"))
    return depth > 0 and _quotes(line) < depth


def _item_ended(fence: str, line: str) -> bool:
    """Whether ``line`` ends the list item a fence opened on (``fence`` led by its content's
    indent): a line, not blank, indented less (blockquote markers count as indent)."""
    indent = len(fence) - len(fence.lstrip(" "))
    if indent == 0 or not line.strip():
        return False
    return _columns(line[: len(line) - len(line.lstrip(" \t>"))]) < indent


def _columns(lead: str) -> int:
    """How many columns a line's leading characters take: a tab runs to the next multiple of
    four, as CommonMark counts it (Obsidian indents list items with tabs)."""
    column = 0
    for char in lead:
        column = column + 4 - column % 4 if char == "\t" else column + 1
    return column


def fences(lines: Iterable[str], open_run: str = "") -> Iterator[tuple[str, str]]:
    """Each line with the fence it belongs to: the opening run (e.g. "```") for the marker
    lines and the code between them, "" outside. ``open_run``: a fence already open before the
    first line (a chunk that starts inside one)."""
    fence = open_run
    for line in lines:
        belongs, fence = step(fence, line)
        yield line, belongs


def mask_comments(line: str, open_comment: bool = False) -> tuple[str, bool]:
    """Blank Obsidian comments (``%%hidden%%``, which may run over lines) in a line whose code
    spans are blanked already, keeping its length: (the line, whether a comment is still open
    after it). Obsidian hides them and reads no link or tag in them, so neither does Knotwork;
    their words stay in the chunk's text, which Obsidian's search finds too."""
    if not open_comment and "%%" not in line:
        return line, False
    chars = list(line)
    start, pos = (0 if open_comment else -1), 0
    while (found := line.find("%%", pos)) >= 0:
        if start < 0:
            start = found
        else:
            chars[start : found + 2] = "\x00" * (found + 2 - start)
            start = -1
        pos = found + 2
    if start >= 0:
        chars[start:] = "\x00" * (len(line) - start)
    return "".join(chars), start >= 0


def visible(line: str, open_comment: bool = False) -> tuple[str, bool]:
    """The line without its comments (inline code kept whole), as Obsidian shows it: what a
    heading's text is read from (``# Plan %%draft%%`` is the heading "Plan"); and whether a
    comment is still open after it."""
    if not open_comment and "%%" not in line:
        return line, False
    code = mask_code_spans(line)
    masked, still_open = mask_comments(code, open_comment)
    kept = (c for c, m, k in zip(line, masked, code, strict=True) if m != "\x00" or k == "\x00")
    return "".join(kept), still_open


def shown_heading(line: str, shown: str) -> tuple[int, str] | None:
    """The heading a line outside comments opens, its text as ``shown`` (the line as
    ``visible`` gives it): only where the line itself is one, as CommonMark and Obsidian read
    it (``%%x%% # Not a heading`` starts with ``%%``: a paragraph), so a comment can neither
    make nor name one (``# Plan %%draft%%`` is "Plan")."""
    return atx_heading(shown) if atx_heading(line) else None


def mask_code_spans(line: str) -> str:
    """Blank inline code spans (same length, so offsets hold) in linear time. Outside a span a
    backslash makes the backtick after it literal (CommonMark): ``\\`x`` opens nothing, and
    the rest of its run may; inside one backslashes are text, so they never stop a closer."""
    if "`" not in line:
        return line
    runs = [m.span() for m in _TICKS.finditer(line)]
    # run length -> starts of the runs of that length not yet passed, nearest last
    later: dict[int, list[int]] = {}
    for start, end in reversed(runs):
        later.setdefault(end - start, []).append(start)
    chars, pos = list(line), 0
    for start, end in runs:
        later[end - start].pop()  # this run itself
        if start < pos:
            continue  # inside a span: it cannot open one
        lead = start
        while lead > pos and line[lead - 1] == "\\":
            lead -= 1
        opener = start + (start - lead) % 2  # an odd run of backslashes escapes one backtick
        size = end - opener
        if size and (same := later.get(size)):  # closed by the next run of exactly that length
            pos = same[-1] + size
            chars[opener:pos] = "\x00" * (pos - opener)
    return "".join(chars)
