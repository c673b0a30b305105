"""ParsedNote → heading-aware chunks with stable ids; pure.

A chunk never crosses a heading. Within a section, paragraphs are packed up to ``size``
characters; a longer paragraph is cut at line, then sentence, then hard boundaries. A chunk's id
derives from vault, note path, position and content hash, and its ``hash`` from heading path and
text (what extraction reads), so an unchanged chunk keeps its extraction wherever it moves; its
``embed_hash`` also covers the note's title and aliases (``context``), which are embedded too.

A chunk's text, heading path and context are NFC, as questions and names are (``_nfc``).
"""

from __future__ import annotations

import bisect
import re
import unicodedata

from knotwork.models import Chunk, ParsedNote, embed_text
from knotwork.text import markdown
from knotwork.text.anchors import heading_anchor
from knotwork.text.digest import text_hash

# 2: one fence rule with the parser; chunks know a fence open at their start.
# 3: the note's title and aliases are embedded and searched with every chunk (``context``).
# 4: lines broken only where the file's are (CR LF, CR, LF), not at U+2028 and the like; the
# parser's heading rule (``text.markdown.atx_heading``); fences opened on a list item.
# 5: a fence opened on a list item ends with the item; the pieces of a long line keep its indent.
# 6: a long sentence is cut at a space, never inside a link; a fence opened in a blockquote ends
# with the quote.
# 7: text, heading path and context in NFC (a decomposed note found by its words).
# 8: a heading inside a %%comment%% (hidden by Obsidian, read by the parser as none) starts no
# section; a comment on a heading's line is no part of its text.
# 9: a line that starts with a comment is no heading ("%%x%% # Not"), as the parser reads it.
# 10: a heading path holds each heading as shown and linked (``text.anchors``): a wikilink as its
# display text, no markup, a space for each character Obsidian refuses in a link (# | ^ : [ ]).
CHUNKER_VERSION = 10
CONTEXT_SEPARATOR = " > "
MAX_CONTEXT_ALIASES = 8  # a note with dozens of aliases would drown its chunks' text
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
# What a cut must not split (a model reading a chunk and the mention masking need it whole).
_LINK = re.compile(markdown.LINK)


# Why the chunks and not the note: a note typed or pasted decomposed (an "i" then a combining
# diaeresis, pointed Hebrew in keyboard order, text from macOS) must be indexed, embedded and
# matched as the NFC words a question is searched by (retrieve/lucene.py), while the parsed note
# keeps the file's text: its SHA-256 (``content_hash``) tells an unchanged file and is what the
# API reports, and its links keep their spelling and columns. NFC never joins or splits lines,
# so line numbers (line_start, line_map, a fact's line) still point into the file. Each line is
# normalised as the chunker reads it: after the parser's rules placed headings and fences on the
# file's own line (the two agree), and before packing (the size bound holds for what is stored).
# One character NFC turns into Markdown: the Greek varia (U+1FEF) becomes a backtick, and three
# would open a fence the parser never saw; a line holding it is kept as written.
def _nfc(text: str) -> str:
    if text.isascii() or _VARIA in text:
        return text
    return unicodedata.normalize("NFC", text)


_VARIA = "\u1fef"


def chunk_context(title: str, aliases: list[str], heading_path: str) -> str:
    """Title (aliases) > heading path; a first heading that repeats the title is said once."""
    names = [a for a in aliases if a and a != title][:MAX_CONTEXT_ALIASES]
    head = f"{title} ({', '.join(names)})" if names else title
    if heading_path == title or heading_path.startswith(f"{title} > "):
        heading_path = heading_path[len(title) + 3 :]
    return CONTEXT_SEPARATOR.join(p for p in (head, heading_path) if p)


def chunk_id(vault: str, path: str, ord_: int, content_hash: str) -> str:
    return text_hash(f"{vault}\x00{path}\x00{ord_}\x00{content_hash}")[:32]


def _sections(
    note: ParsedNote,
) -> tuple[list[tuple[str, list[tuple[int, str]]]], dict[int, str], set[int]]:
    """(heading path, [(file line, text)]) per section, headings inside code fences ignored;
    with the fence open before each file line and the lines inside fences."""
    sections: list[tuple[str, list[tuple[int, str]]]] = [("", [])]
    stack: list[tuple[int, str]] = []
    open_before: dict[int, str] = {}
    code: set[int] = set()
    fence, comment = "", False  # comment: inside a %%comment%% that runs over lines
    for offset, line in enumerate(markdown.file_lines(note.body)):
        number = note.body_line + offset
        open_before[number] = fence
        belongs, fence = markdown.step(fence, line)
        if belongs:
            code.add(number)
        hidden, shown = comment, line  # a heading Obsidian hides in a comment starts no section
        if not belongs:
            shown, comment = markdown.visible(line, comment)
        heading = None if belongs or hidden else markdown.shown_heading(line, shown)
        if heading:
            level = heading[0]
            # What a citation's anchor says; a heading of markup alone ("## :") keeps its text.
            shown_text = _nfc(heading_anchor(heading[1]) or heading[1])
            stack = [(lvl, txt) for lvl, txt in stack if lvl < level] + [(level, shown_text)]
            sections.append((" > ".join(t for _, t in stack), [(number, _nfc(line))]))
        else:
            sections[-1][1].append((number, _nfc(line)))
    kept = [(h, lines) for h, lines in sections if any(t.strip() for _, t in lines)]
    return kept, open_before, code


def _paragraphs(lines: list[tuple[int, str]], code: set[int]) -> list[list[tuple[int, str]]]:
    """Blank-line separated blocks; a fenced code block stays one block."""
    blocks: list[list[tuple[int, str]]] = [[]]
    for number, text in lines:
        if not text.strip() and number not in code:
            if blocks[-1]:
                blocks.append([])
            continue
        blocks[-1].append((number, text))
    return [b for b in blocks if b]


def _cuts(text: str, size: int) -> list[str]:
    """``text`` in pieces of about ``size``: each cut at the last space in its second half,
    moved before a link it would split (after one that alone is longer than the piece, unless
    that is past four pieces' length: then it is cut where it falls)."""
    spans = [m.span() for m in _LINK.finditer(text)] if "[" in text else []
    starts = [first for first, _ in spans]  # sorted: the links do not overlap
    pieces, start = [], 0
    while len(text) - start > size:
        end = start + size
        space = text.rfind(" ", start + size // 2, end)
        end = space + 1 if space > start else end
        at = bisect.bisect_left(starts, end) - 1  # the last link opening before the cut
        if at >= 0 and end < spans[at][1]:
            first, last = spans[at]
            end = first if first > start else (last if last - start <= 4 * size else end)
        pieces.append(text[start:end])
        start = end
    return [*pieces, text[start:]] if start < len(text) else pieces


def _split_long(block: list[tuple[int, str]], size: int) -> list[list[tuple[int, str]]]:
    """Cut a block larger than ``size`` at lines, then sentences, then hard offsets."""
    pieces: list[tuple[int, str]] = []
    for number, text in block:
        if len(text) <= size:
            pieces.append((number, text))
            continue
        # Each piece after the first keeps the line's indent: inside a list item's code fence
        # an unindented piece would read as the item's end (text.markdown).
        lead = text[: len(text) - len(text.lstrip(" \t>"))]
        lead = lead if len(lead) < size // 2 else ""  # a line of spaces or '>' is no indent
        cut = [piece for sentence in _SENTENCE.split(text) for piece in _cuts(sentence, size)]
        pieces += [(number, piece if j == 0 else lead + piece) for j, piece in enumerate(cut)]
    out: list[list[tuple[int, str]]] = [[]]
    length = 0
    for number, text in pieces:
        if out[-1] and length + len(text) + 1 > size:
            out.append([])
            length = 0
        out[-1].append((number, text))
        length += len(text) + 1
    return [o for o in out if o]


def chunk_note(note: ParsedNote, vault: str, size: int) -> list[Chunk]:
    """The note's chunks, in order."""
    chunks: list[Chunk] = []
    sections, open_before, code = _sections(note)
    for heading_path, lines in sections:
        current: list[tuple[int, str]] = []
        groups: list[list[tuple[int, str]]] = []
        for block in _paragraphs(lines, code):
            text_len = sum(len(t) + 1 for _, t in current)
            block_len = sum(len(t) + 1 for _, t in block)
            if current and text_len + block_len + 1 > size:
                groups.append(current)
                current = []
            if block_len > size:
                groups += _split_long(block, size)
                continue
            if current:
                current.append((block[0][0], ""))  # keep the paragraph break
            current += block
        if current:
            groups.append(current)
        for group in groups:
            while group and not group[0][1]:
                group = group[1:]
            while group and not group[-1][1]:
                group = group[:-1]
            text = "\n".join(t for _, t in group)
            if not text.strip():
                continue
            content_hash = text_hash(f"{heading_path}\n\n{text}" if heading_path else text)
            context = chunk_context(_nfc(note.title), list(map(_nfc, note.aliases)), heading_path)
            ord_ = len(chunks)
            chunks.append(
                Chunk(
                    id=chunk_id(vault, note.path, ord_, content_hash),
                    ord=ord_,
                    heading_path=heading_path,
                    line_start=group[0][0],
                    line_end=group[-1][0],
                    text=text,
                    hash=content_hash,
                    line_map=tuple(number for number, _ in group),
                    fence=open_before.get(group[0][0], ""),
                    context=context,
                    embed_hash=text_hash(embed_text(context, text)),
                )
            )
    return chunks


def chunk_for_line(chunks: list[Chunk], line: int) -> str | None:
    """The id of the chunk holding a file line (None for frontmatter lines)."""
    for chunk in chunks:
        if chunk.line_start <= line <= chunk.line_end:
            return chunk.id
    return None
