"""Note names that would pass for another note's: spaces around a name, characters that show
nothing, characters drawn as a slash or a dot (``vault.new_names`` refuses a new note so named).

What shows nothing: every format character (Unicode category Cf: zero-width spaces, soft
hyphen, text-direction marks, tags), every control character (Cc, C1 included), the line and
paragraph separators, the other default-ignorable code points (the combining
grapheme joiner, the Hangul fillers, variation selectors, unassigned ones) and the braille
blank. Kept, because real names need them and they show only as part of what they join:

- a zero-width joiner between two emoji (``👩‍💻``, ``🏳️‍🌈``), and a joiner or non-joiner between
  two letters of a script that shapes with them (Arabic, Persian, the Indic scripts);
- a variation selector right after a symbol (``❤️``) or in a keycap (``1️⃣``), where it picks
  the emoji or the text glyph; after a letter it changes nothing one sees, and after an
  ideograph only a detail of its strokes, so those are refused;
- a Mongolian free variation selector after a Mongolian letter;
- the tag characters of a flag (``🏴`` + tags + cancel tag, as England's flag is spelled).
"""

from __future__ import annotations

import unicodedata

_ZWNJ, _ZWJ, _KEYCAP = "\u200c", "\u200d", "\u20e3"
_BLACK_FLAG, _TAGS, _CANCEL_TAG = "\U0001f3f4", "\U000e0020", "\U000e007f"
# Fillers: letters and a braille pattern that show as blank space, and no white space to
# str.strip(). With the other default-ignorable code points that are not Cf, they show nothing.
_FILLERS = "\u115f\u1160\u3164\uffa0\u2800"
_BLANK = {*_FILLERS, "\u034f", "\u17b4", "\u17b5"}
_IGNORABLE_RANGES = ((0xFFF0, 0xFFF8), (0x2065, 0x2065), (0xE0000, 0xE0FFF))
_VARIATION = ((0xFE00, 0xFE0F), (0xE0100, 0xE01EF))
# Format and control characters and the line/paragraph separators (U+2028, U+2029).
_UNSEEN = frozenset({"Cf", "Cc", "Zl", "Zp"})
_MONGOLIAN_FVS = {"\u180b", "\u180c", "\u180d", "\u180f"}
# Scripts whose letters join or shape differently with ZWJ / ZWNJ between them: Arabic,
# Syriac, Thaana, N'Ko and the other Arabic blocks; the Indic scripts (Devanagari to
# Sinhala); Myanmar; Khmer; Mongolian; Arabic presentation forms.
_JOINING = (
    (0x0600, 0x08FF),
    (0x0900, 0x0DFF),
    (0x1000, 0x109F),
    (0x1780, 0x17FF),
    (0x1800, 0x18AF),
    (0xA8E0, 0xA8FF),
    (0xFB50, 0xFDFF),
    (0xFE70, 0xFEFC),
)
# Emoji modifiers and the emoji presentation selector: part of the emoji before a ZWJ.
_EMOJI_TAIL = "\ufe0f" + "".join(chr(c) for c in range(0x1F3FB, 0x1F400))


def _within(char: str, ranges: tuple[tuple[int, int], ...]) -> bool:
    return any(low <= ord(char) <= high for low, high in ranges)


def _emoji(char: str) -> bool:
    return unicodedata.category(char) == "So"


def _joining_letter(char: str) -> bool:
    return _within(char, _JOINING) and unicodedata.category(char)[0] in "LM"


def _variant_base(char: str, after: str) -> bool:
    """Whether a variation selector between ``char`` and ``after`` shows: after a symbol (an
    emoji or its text form), or a keycap's digit, ``#`` or ``*`` (the keycap follows)."""
    kind = unicodedata.category(char)
    if kind in ("So", "Sm") or (kind == "Po" and not char.isascii()):  # ❤ ↔ ‼
        return True
    return (kind == "Nd" or char in "#*") and after == _KEYCAP


def _shows(name: str, i: int) -> bool:
    """Whether ``name[i]``, a character that alone shows nothing, shows as part of its
    neighbours (see the module's list)."""
    char, before, after = name[i], name[:i], name[i + 1 : i + 2]
    if char in (_ZWJ, _ZWNJ):
        if before and after and _joining_letter(before[-1]) and _joining_letter(after):
            return True
        base = before.rstrip(_EMOJI_TAIL)
        return char == _ZWJ and bool(base and after) and _emoji(base[-1]) and _emoji(after)
    if _within(char, _VARIATION):
        return bool(before) and _variant_base(before[-1], after)
    if char in _MONGOLIAN_FVS:
        return bool(before) and "\u1820" <= before[-1] <= "\u18aa"
    if _TAGS <= char <= _CANCEL_TAG:  # a flag's: 🏴, tags, then the cancel tag
        start, end = name.rfind(_BLACK_FLAG, 0, i) + 1, name.find(_CANCEL_TAG, i)
        tags = name[start:end]
        return start > 0 and end > 0 and bool(tags) and all(_TAGS <= t < _CANCEL_TAG for t in tags)
    return False


def _invisible(char: str) -> bool:
    return (
        unicodedata.category(char) in _UNSEEN
        or char in _BLANK
        or char in _MONGOLIAN_FVS
        or _within(char, _IGNORABLE_RANGES)
        or _within(char, _VARIATION)
    )


def invisible_in(name: str) -> str | None:
    """The first character of ``name`` that shows nothing where it stands, or None."""
    for i, char in enumerate(name):
        if _invisible(char) and not _shows(name, i):
            return char
    return None


def trimmed(name: str) -> str:
    """``name`` without the spaces and fillers around it: how it shows."""
    return name.strip().strip(_FILLERS).strip()


# Drawn as a slash, a backslash or a full stop: a name holding one passes for a path
# ("People" U+FF0F "Alice.md" shows as the note Alice in People) or for "." and "..". A short
# explicit list; the letters of other scripts drawn alike (Cyrillic U+0430 for Latin "a") would
# need Unicode's confusables table, which this does not carry.
_SEPARATOR_LOOKALIKES = {
    **dict.fromkeys("\u2044\u2215\u2571\u27cb\u29f8\uff0f", "/"),
    **dict.fromkeys("\u2216\u2572\u27cd\u29f5\u29f9\ufe68\uff3c", "\\"),
    **dict.fromkeys("\u2024\ufe52\uff0e", "."),
    "\u2025": "..",
}


def separator_lookalike(name: str) -> tuple[str, str] | None:
    """The first character of ``name`` drawn as a path's slash, backslash or dot, with what
    it looks like; None when none is."""
    for char in name:
        if looks := _SEPARATOR_LOOKALIKES.get(char):
            return char, looks
    return None
