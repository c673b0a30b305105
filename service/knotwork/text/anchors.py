"""A heading as a citation's anchor: the text a reader sees and Obsidian links it by.

Obsidian shows a wikilink in a heading as its display text (the alias after ``|``, else its
target) and inline markup as what it formats; a link to the heading (``[[Note#Latch SR
timing]]``) cannot hold ``# | ^ : [ ]`` or ``%%``, so Obsidian writes a space for each and
collapses the spaces (its ``stripHeadingForLink``). A heading ``Latch [[latch SR]] timing`` is
cited as ``Latch latch SR timing``, ``Step 1: plan`` as ``Step 1 plan``, ``Learning C#`` as
``Learning C``.
"""

from __future__ import annotations

import re

# Code first: what a span holds is text, never markup (`**x**` shows its stars).
_CODE = re.compile(r"(`+)(.+?)\1")
_WIKILINK = re.compile(r"!?\[\[([^\[\]\n]*)\]\]")
_MD_LINK = re.compile(r"!?\[([^\[\]\n]*)\]\((?:[^()\n]|\([^()\n]*\))*\)")
# Paired emphasis, strike and highlight; '_' only at a word's edge (snake_case is a word).
_PAIRED = re.compile(
    r"(\*\*\*|\*\*|\*|~~|==)(?=\S)(.+?)(?<=\S)\1|(?<!\w)(___|__|_)(?=\S)(.+?)(?<=\S)\3(?!\w)"
)
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
# What Obsidian refuses in a link to a heading. A backslash stays: TeX ($x \to 0$) needs it.
_REFUSED = re.compile(r"%%|[#|^:\[\]]")
_SPACES = re.compile(r"\s+")
_HELD = "\x00"  # stands for a code span's or escaped character's text while markup is read
# Markup is read in headings up to this long: the code and emphasis patterns backtrack on long
# runs of backticks, stars or underscores (a 10,000-backtick heading held the interpreter for
# ten seconds), and a longer heading is no title a reader links to. Past it, only the characters
# a link refuses are replaced.
MARKUP_MAX = 1000


def _shown_link(match: re.Match[str]) -> str:
    target, bar, alias = match.group(1).partition("|")
    return alias if bar and alias.strip() else target


def heading_anchor(heading: str) -> str:
    """The heading as shown and as a link to it may name it (see the module's docstring)."""
    if not any(c in heading for c in "`[]*_~=\\#|^:%"):
        return _SPACES.sub(" ", heading).strip()
    if len(heading) > MARKUP_MAX:
        return _SPACES.sub(" ", _REFUSED.sub(" ", heading)).strip()
    heading = heading.replace(_HELD, " ")  # a NUL in the file is no placeholder
    held: list[str] = []

    def hold(match: re.Match[str]) -> str:
        held.append(match.group(match.lastindex or 0).strip())
        return f"{_HELD}{len(held) - 1}{_HELD}"

    text = _ESCAPE.sub(hold, _CODE.sub(hold, heading))
    text = _WIKILINK.sub(_shown_link, text)
    text = _MD_LINK.sub(lambda m: m.group(1), text)
    previous = None
    while previous != text:  # nested: ***a*** or **_a_**
        previous, text = text, _PAIRED.sub(lambda m: m.group(2) or m.group(4), text)
    text = re.sub(f"{_HELD}(\\d+){_HELD}", lambda m: held[int(m.group(1))], text)
    return _SPACES.sub(" ", _REFUSED.sub(" ", text)).strip()
