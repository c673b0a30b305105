"""The code point ranges of the scripts that the text code tells apart, each defined once; the
character classes of text/language.py, text/keys.py, text/pairs.py and retrieve/lucene.py are
built from them (``char_class``): Thai, Lao, Myanmar and Khmer, and the scripts whose every
character is a word of its own to Lucene's tokenizers (Han, hiragana); and the letters of
Chinese, Japanese and Korean together, by their scripts (``CJK_LETTER``); and the letters of the
Cyrillic and Arabic scripts (``CYRILLIC_LETTER``, ``ARABIC_LETTER``)."""

from __future__ import annotations

Range = tuple[int, int]  # the first and the last code point, both included

# Thai: its block; every assigned character in it (letters, vowel signs, tone marks, digits and
# punctuation); and its letters alone (consonants and the vowels written as letters, not the
# vowel signs or tone marks above and below them).
THAI_BLOCK: Range = (0x0E00, 0x0E7F)
THAI_CHARACTERS: tuple[Range, ...] = ((0x0E01, 0x0E5B),)
THAI_LETTERS: tuple[Range, ...] = ((0x0E01, 0x0E30), (0x0E32, 0x0E33), (0x0E40, 0x0E46))
LAO_BLOCK: Range = (0x0E80, 0x0EFF)
# Myanmar and its extensions B, A and C.
MYANMAR_BLOCKS: tuple[Range, ...] = (
    (0x1000, 0x109F),
    (0xA9E0, 0xA9FF),
    (0xAA60, 0xAA7F),
    (0x116D0, 0x116FF),
)
# Khmer and Khmer Symbols.
KHMER_BLOCKS: tuple[Range, ...] = ((0x1780, 0x17FF), (0x19E0, 0x19FF))
# Hiragana, CJK Unified Ideographs Extension A and CJK Unified Ideographs: Lucene's tokenizers
# index each of their characters as a term of its own.
ONE_CHAR_TERM_BLOCKS: tuple[Range, ...] = ((0x3040, 0x309F), (0x3400, 0x4DBF), (0x4E00, 0x9FFF))


# Han, hiragana, katakana and Hangul letters, by script extensions (kana's prolonged sound
# mark "ー" is of both kana): the letters of Chinese, Japanese and Korean, which the `cjk`
# analyzer pairs (text/language.py tells those notes by them). A ``regex`` V1 class.
CJK_LETTER = r"[[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]&&\p{L}]"
# The letters of the Cyrillic and Arabic scripts (not the Arabic vowel marks, which are no
# letters, nor its digits): text/language.py tells Russian and Arabic notes by them. ``regex``
# V1 classes.
CYRILLIC_LETTER = r"[\p{sc=Cyrillic}&&\p{L}]"
ARABIC_LETTER = r"[\p{sc=Arabic}&&\p{L}]"


def char_class(*ranges: Range) -> str:
    """A regex character class (``re`` and ``regex`` alike) of exactly ``ranges``. None of
    these scripts' code points is regex syntax, so each is written as itself."""
    parts = (chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in ranges)
    return f"[{''.join(parts)}]"
