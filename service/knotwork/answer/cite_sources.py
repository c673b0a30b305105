"""How a model writes the source numbers a prompt gave (``[S3]``, ``(S1, S2)``, ``【S2】``…):
the forms read as citations, what may still become one while an answer streams, and the numbers
one names. ``answer.cite`` decides with these what each bracket of an answer is.
"""

from __future__ import annotations

import re

# Source numbers as models write them: [S3], [S1, S4], [S1 S4], [S1 and S4], [S1-S3] (a range),
# [Source 2], [[S2]].
_WORD = r"S(?:ources?)?"
_DASH = r"\-\u2013\u2014"  # hyphen, en dash, em dash (for a character class)
# Numbers are apart by a separator word or mark, or by spaces alone: never by nothing, so a run
# of digits or spaces is read one way only (an optional separator made the match exponential).
_SEP = rf"(?:\s*(?:[,;&]|and|to|[{_DASH}])\s*|\s+)"


def _numbers(word: str) -> str:
    """Source numbers, the first (and any other) led by ``word``."""
    return rf"{word}\s*\d+(?:{_SEP}(?:{word}\s*)?\d+)*"


def _named(word: str) -> str:
    return rf"(?:{word}\s*:\s*)?({_numbers(word)})"  # "Source: S1" names S1


_NUMBERS = _numbers(_WORD)
_NAMED = _named(_WORD)
# Also as a label names them ([Source: S1], a footnote's [^S1], [S1.]) and with the note a
# model added ([S1: People/Alice.md]): the number is what it cites.
_LABELLED = rf"\[\^?\s*{_NAMED}\s*(?::[^\[\]\n]*)?\.?\]"
# In parentheses only when they hold nothing else: "(S1)", "(S1, S2)", "(Sources 1-2)" cite;
# "(see S1 of the manual)" and "(1)" are words, and so is "(s1)": in parentheses only the
# capital "S" / "Source" models write is read ("if (s1)" is a variable).
_CASED_WORD = rf"(?-i:{_WORD})"
_PARENS = rf"\(\s*{_named(_CASED_WORD)}\s*\)"
# In lenticular brackets, as some models cite ("【S1】", "【S1†source】").
_LENTICULAR = rf"\u3010\s*{_NAMED}\s*(?:[:\u2020][^\u3010\u3011\n]*)?\.?\u3011"
SOURCES = re.compile(rf"\[\[\s*({_NUMBERS})\s*\]\]|{_LABELLED}|{_PARENS}|{_LENTICULAR}", re.I)
# What may still become one as a streamed answer arrives: the opening mark, then only the
# characters of one (a parenthesis: its "S" first, so "(1990 to 2000" is not held back).
_CHARS = rf"[\s\d,;:.&{_DASH}sourcendat]"
SQUARE_PREFIX = re.compile(rf"\[\[?\^?{_CHARS}*\]?\]?", re.I)
PARENS_PREFIX = re.compile(rf"\(\s*(?:(?-i:S){_CHARS}*)?\)?", re.I)
_BEGUN = re.compile(rf"[\[\u3010]\[?\^?\s*(?:s{_CHARS}*)?|\(\s*(?:(?-i:S){_CHARS}*)?", re.I)
OPENING = re.compile("[\\[(\u3010]")  # where a citation may begin
_NUMBER_OR_RANGE = re.compile(rf"(\d+)(?:\s*(?:to|[{_DASH}])\s*(?:{_WORD}\s*)?(\d+))?", re.I)
MAX_RANGE = 20  # [S1-S300] is no range of blocks a prompt gave
_INERT = str.maketrans(
    {
        "[": "\uff3b",
        "]": "\uff3d",
        "(": "\uff08",
        ")": "\uff09",
        "\u3010": "\u3016",
        "\u3011": "\u3017",
    }
)

_SHOWN = str.maketrans({"\uff08": "(", "\uff09": ")"})  # ``inert``'s parentheses, read back


def source_tag(number: int) -> str:
    """How the prompt numbers a block, and how the model cites it."""
    return f"[S{number}]"


def inert(text: str) -> str:
    """Note text as a prompt shows it: a source marker written in a note ("[S2]", "(S2)")
    cannot pass for the number of a block, its brackets turned to look-alikes ("\uff3bS2\uff3d")."""
    return SOURCES.sub(lambda m: m.group(0).translate(_INERT), text)


def as_shown(given: str) -> str:
    """What the prompt showed the model as ``shown_name`` compares with it: case aside, any run
    of whitespace as one space, the look-alikes ``inert`` wrote for a note's parentheses as
    parentheses."""
    return " ".join(given.translate(_SHOWN).split()).casefold()


def shown_name(text: str, i: int, end: int, shown: str) -> bool:
    """Whether the parenthesis ``text[i:end]`` and the word right before it ("Databases (S2)")
    are written so in ``shown`` (``as_shown``), the word not the end of a longer one there: a
    name the model copied, not a citation. No word before it ("… at Acme. (S2)"): no name."""
    stop = i
    while stop and text[stop - 1].isspace():
        stop -= 1
    start = stop
    while start and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    if stop == i or start == stop:
        return False
    name = as_shown(f"{text[start:stop]} {text[i:end]}")
    at = shown.find(name)
    while at > 0 and (shown[at - 1].isalnum() or shown[at - 1] == "_"):
        at = shown.find(name, at + 1)  # "MyDatabases (S2)" names no "Databases (S2)"
    return at >= 0


def cited_numbers(marker: re.Match[str]) -> list[int]:
    """The source numbers a ``SOURCES`` match names, ranges spelled out."""
    written = next(group for group in marker.groups() if group)
    numbers: list[int] = []
    for found in _NUMBER_OR_RANGE.finditer(written):
        first, last = int(found[1]), int(found[2]) if found[2] else None
        if last is not None and first < last <= first + MAX_RANGE:
            numbers += range(first, last + 1)
        else:
            numbers += [first] if last is None else [first, last]
    return numbers


def begun(tail: str) -> bool:
    """Whether ``tail`` is a source marker begun and not finished: "[", "[S1", "(Source 2, S",
    "\u3010S" (not "[1, 2", nor one closed)."""
    return bool(_BEGUN.fullmatch(tail))


def lenticular_end(text: str, i: int, longest: int) -> int | None:
    """The end of the "【…】" at ``i``; -1 when the text ends first, None when a line break or
    more than ``longest`` characters come first (words, not a citation)."""
    for k in range(i + 1, min(len(text), i + longest + 1)):
        if text[k] == "\n":
            return None
        if text[k] == "\u3011":
            return k + 1
    return -1 if len(text) <= i + longest else None


def span_end(text: str, i: int, longest: int) -> int | None:
    """The end of the bracketed span at ``i`` (one level of nesting), -1 if the text ends
    first, None if there is none (a newline, or longer than ``longest``: "[0, 1)" then a
    paragraph is neither held back nor scanned again at every piece of a stream)."""
    depth = 0
    for k in range(i, min(len(text), i + longest + 1)):
        char = text[k]
        if char == "\n" or (char == "[" and depth == 2):
            return None
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth == 0:
            return k + 1
    return -1 if len(text) <= i + longest else None
