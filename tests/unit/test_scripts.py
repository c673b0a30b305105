"""The script ranges of text/scripts.py: each character class built from them holds exactly the
code points of the literal pattern it stands for, over the whole of Unicode."""

from __future__ import annotations

import re
from typing import Any

import pytest
import regex

from knotwork.retrieve import lucene
from knotwork.text import keys, language

# Every code point, each at its own index: a pattern's matches cover the code points it holds.
EVERY = "".join(map(chr, range(0x110000)))

# Lucene's one-character terms (hiragana, Han) as retrieve/lucene.py wrote them literally.
ONE_CHAR_LITERAL = "\u3040-\u309f\u3400-\u4dbf\u4e00-\u9fff"
TERM_LITERAL = regex.compile(
    rf"[{ONE_CHAR_LITERAL}]|[[\p{{L}}\p{{N}}\p{{M}}_]--[{ONE_CHAR_LITERAL}]]+", regex.V1
)

# Each built class beside the literal pattern it stands for.
CLASSES = {
    "one-char terms (lucene)": (
        regex.compile(lucene._ONE_CHAR),
        regex.compile(f"[{ONE_CHAR_LITERAL}]"),
    ),
    "terms (lucene)": (lucene._TERM, TERM_LITERAL),
    "thai letters (language)": (
        language._THAI,
        re.compile(r"[\u0e01-\u0e30\u0e32\u0e33\u0e40-\u0e46]"),
    ),
    "thai run (lucene)": (lucene._THAI_RUN, regex.compile(r"[\u0e01-\u0e5b]+")),
    "cluster blocks (keys)": (
        keys._CLUSTER_BLOCKS,
        re.compile(
            "[\u0e00-\u0eff\u1000-\u109f\ua9e0-\ua9ff\uaa60-\uaa7f\U000116d0-\U000116ff"
            "\u1780-\u17ff\u19e0-\u19ff]"
        ),
    ),
}


def held(pattern: Any) -> set[int]:
    """The code points ``pattern`` matches, alone or in a run."""
    return {i for m in pattern.finditer(EVERY) for i in range(m.start(), m.end())}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_a_built_class_holds_the_code_points_of_its_literal_pattern(name: str) -> None:
    built, literal = CLASSES[name]
    assert type(built) is type(literal) and built.flags == literal.flags
    assert held(built) == held(literal)


def test_lucene_terms_split_all_of_unicode_as_the_literal_pattern_did() -> None:
    """Not only the same code points: the same terms, one character each for hiragana and Han,
    runs of the other letters, digits and marks."""
    assert lucene._TERM.findall(EVERY) == TERM_LITERAL.findall(EVERY)


@pytest.mark.parametrize(
    ("char", "one_char"),
    [
        ("\u303f", False),  # ideographic half fill space, before hiragana
        ("\u3040", True),  # the hiragana block's start
        ("\u309f", True),  # hiragana digraph yori, its end
        ("\u30a0", False),  # katakana: runs, as before
        ("\u3400", True),  # CJK Extension A's start
        ("\u4dbf", True),
        ("\u4dc0", False),  # Yijing hexagram symbols
        ("\u4e00", True),  # CJK Unified Ideographs
        ("\u9fff", True),
        ("\ua000", False),  # Yi
    ],
)
def test_one_char_boundaries(char: str, one_char: bool) -> None:
    assert (regex.fullmatch(lucene._ONE_CHAR, char) is not None) == one_char


@pytest.mark.parametrize(
    ("char", "letter", "thai", "cluster"),
    [
        ("\u0e00", False, False, True),  # unassigned, in the Thai block
        ("\u0e01", True, True, True),  # ko kai, the first Thai letter
        ("\u0e31", False, True, True),  # mai han-akat, a vowel sign above
        ("\u0e32", True, True, True),  # sara aa, a vowel written as a letter
        ("\u0e47", False, True, True),  # maitaikhu, a mark
        ("\u0e5b", False, True, True),  # khomut, the block's last character
        ("\u0e5c", False, False, True),  # unassigned
        ("\u0eff", False, False, True),  # the Lao block's end
        ("\u0f00", False, False, False),  # Tibetan
        ("\u1000", False, False, True),  # Myanmar
        ("\u17ff", False, False, True),  # Khmer's end
        ("\U000116d0", False, False, True),  # Myanmar Extended-C
        ("\U00011700", False, False, False),  # Ahom
    ],
)
def test_boundaries(char: str, letter: bool, thai: bool, cluster: bool) -> None:
    assert (language._THAI.fullmatch(char) is not None) == letter
    assert (lucene._THAI_RUN.fullmatch(char) is not None) == thai
    assert (keys._CLUSTER_BLOCKS.fullmatch(char) is not None) == cluster
