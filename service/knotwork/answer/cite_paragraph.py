"""Where the paragraph of a code span's opening run ends, as CommonMark reads an answer's lines:
a span closes only inside its paragraph (``answer.cite_code``).

The paragraph's first line tells the blocks its text sits in: the blockquotes and list items
its markers open, and for a line that has none but is indented two columns or more, a list
item's later paragraph (the indent is the item's content's; an indented paragraph of no list is
read so too, where CommonMark would not). A later line goes on with the paragraph unless it is
blank (in its quotes too: ">" alone) or starts a block: a blockquote deeper than the
paragraph's or outside its list item, an ATX heading, a thematic break, a list item (one
interrupting the paragraph in its own block says something and, if numbered, is numbered 1), or,
unless it is a lazy line (outside the paragraph's blocks), a setext underline. Indented four
columns past its blocks, a line is text. A heading is a line of its own. HTML blocks are not
read; fences are ``cite_code``'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_QUOTE = -1  # a blockquote among a line's blocks; a list item's is its content's column
_ITEM = re.compile(r"(?:[-+*]|(\d{1,9})[.)])(?=[ \t]|$)")
_ATX = re.compile(r"#{1,6}(?:[ \t]|$)")
_RULE = re.compile(r"(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,}")  # a thematic break
_UNDERLINE = re.compile(r"(?:=+|-+)[ \t]*")


@dataclass(frozen=True)
class Paragraph:
    """The blocks a paragraph's first line sits in (``_QUOTE``, or a list item's content
    column), and whether that line is an ATX heading, which no later line continues."""

    blocks: tuple[int, ...]
    heading: bool


def _spaces(line: str, pos: int, col: int) -> tuple[int, int]:
    """The offset and column past the spaces and tabs at ``pos`` (a tab to the next multiple of
    four, as CommonMark counts it)."""
    while pos < len(line) and line[pos] in " \t":
        col = col + 4 - col % 4 if line[pos] == "\t" else col + 1
        pos += 1
    return pos, col


def _quote(line: str, pos: int, col: int) -> tuple[int, int]:
    """Past a ``>`` at ``pos`` and the one space that goes with it."""
    pos, col = pos + 1, col + 1
    if pos < len(line) and line[pos] in " \t":
        pos, col = pos + 1, col + 1
    return pos, col


def following(para: Paragraph | None, line: str) -> Paragraph | None:
    """The paragraph ``line`` is in, after a line in ``para`` (None: in none); None for a line
    in none (blank, a thematic break, a setext underline)."""
    if para is not None and not para.heading:
        if not ends(para, line):
            return para
        if _UNDERLINE.fullmatch(line.lstrip(" \t>")):
            return None
    return paragraph(line)


def paragraph(line: str) -> Paragraph | None:
    """The blocks of a paragraph's first line; None for a line that starts none."""
    blocks: list[int] = []
    pos, col, base = 0, 0, 0
    while True:
        pos, col = _spaces(line, pos, col)
        if col - base >= 4:
            break
        if line.startswith(">", pos):
            pos, col = _quote(line, pos, col)
            blocks.append(_QUOTE)
            base = col
            continue
        item = _ITEM.match(line, pos)
        if item is None:
            break
        marked = col + item.end() - pos
        after, content = _spaces(line, item.end(), marked)
        if after == len(line) or content - marked > 4:
            after, content = item.end() + 1, marked + 1  # content one space after the marker
        blocks.append(content)
        pos, col, base = after, content, content
    if not line[pos:].strip(" \t>") or _RULE.fullmatch(line, pos):
        return None
    heading = col - base < 4 and bool(_ATX.match(line, pos))
    if col - base >= 2:  # as a list item's later line: its content is two columns in at least
        blocks.append(col)
    return Paragraph(tuple(blocks), heading)


def ends(para: Paragraph, line: str) -> bool:
    """Whether ``line`` (a whole line, after the paragraph's first) ends the paragraph."""
    pos, col, base, inside = 0, 0, 0, True
    for block in para.blocks:
        pos, col = _spaces(line, pos, col)
        if block == _QUOTE and col - base < 4 and line.startswith(">", pos):
            pos, col = _quote(line, pos, col)
            base = col
        elif block != _QUOTE and col >= block:
            base = block
        else:
            inside = False  # a lazy line, or one outside the paragraph's list item
            break
    pos, col = _spaces(line, pos, col)
    rest = line[pos:]
    if not rest.strip(" \t>"):
        return True  # blank, in its quotes too, or a quote opened empty
    if col - base >= 4:
        return False
    if rest.startswith(">") or _ATX.match(rest) or _RULE.fullmatch(rest):
        return True
    if inside and _UNDERLINE.fullmatch(rest):
        return True
    item = _ITEM.match(rest)
    if item is None:
        return False
    # Interrupting the paragraph in its own block, a list item says something and starts at 1;
    # outside it (a sibling item), any item ends it.
    said = bool(rest[item.end() :].strip(" \t"))
    return not inside or (said and (item[1] is None or int(item[1]) == 1))
