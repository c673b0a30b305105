"""A question as a Lucene query for the full-text indexes: its words, OR-ed and escaped, split
as the indexes' tokenizers split text."""

from __future__ import annotations

import unicodedata
from collections.abc import Collection

import regex

from knotwork.text.pairs import pairs, runs
from knotwork.text.scripts import CJK_LETTER, ONE_CHAR_TERM_BLOCKS, THAI_CHARACTERS, char_class

# Han ideographs and hiragana are a term each, as Lucene's tokenizers index them: a run of them
# quoted whole would be a phrase that only the question's exact wording matches.
_ONE_CHAR = char_class(*ONE_CHAR_TERM_BLOCKS)
# A word keeps its combining marks, as the index's tokenizer keeps them (``\w`` alone cuts
# "हिन्दी" at its vowel signs into letters no chunk holds alone).
_THAI_RUN = regex.compile(char_class(*THAI_CHARACTERS) + "+")
_TERM = regex.compile(rf"{_ONE_CHAR}|[[\p{{L}}\p{{N}}\p{{M}}_]--{_ONE_CHAR}]+", regex.V1)
# For the `cjk` index (chunk_text_cjk): a run of Han, kana and Hangul letters whole, and the
# other words as _TERM has them.
_CJK_RUN = regex.compile(f"{CJK_LETTER}+", regex.V1)
_CJK_TERM = regex.compile(rf"{CJK_LETTER}+|[[\p{{L}}\p{{N}}\p{{M}}_]--{CJK_LETTER}]+", regex.V1)
MAX_TERMS = 64  # a question's terms searched at most (a run of n characters: n - 1 pairs)


def _words(pattern: regex.Pattern[str], question: str, drop: Collection[str]) -> list[str]:
    """The first MAX_TERMS terms ``pattern`` finds in the question (NFC, as notes are indexed), less
    those in ``drop`` (case-folded)."""
    found = pattern.findall(unicodedata.normalize("NFC", question))
    return [w for w in found if w.casefold() not in drop][:MAX_TERMS]


def lucene_query(question: str, drop: Collection[str] = ()) -> str:
    """The question's words (NFC, as notes are indexed), OR-ed and escaped, so no user text is
    read as Lucene syntax; less the words in ``drop`` (case-folded)."""
    words = _words(_TERM, question, drop)
    # Quoted, so words such as AND, OR, NOT or TO are terms, never operators; a run of Thai
    # bare (nothing in it is syntax), so that the Thai analyzer's words in it are terms each,
    # not one phrase only the question's exact wording matches.
    return " OR ".join(w if _THAI_RUN.fullmatch(w) else f'"{w}"' for w in words)


def cjk_query(question: str, drop: Collection[str] = ()) -> str:
    """``lucene_query`` for the `cjk` index, whose analyzer makes a run of Han, kana or Hangul
    the overlapping pairs of its characters ("서울은": 서울, 울은): such a run goes bare (no
    character of it is syntax), so its pairs are terms each, OR-ed, and "서울" finds
    "서울은"; quoted, it would be a phrase of them, only the run as written. A run of one
    character is a term no pair equals (the analyzer pairs none), so it goes as the pairs it
    begins or ends: "猫" finds "小猫很可爱" (by 猫很), "물" finds "물은"."""
    terms: list[str] = []
    budget = MAX_TERMS  # words and pairs: a long run's pairs would pass Lucene's clause limit
    for w in _words(_CJK_TERM, question, drop):
        if budget <= 0:
            break
        if not _CJK_RUN.fullmatch(w):
            terms.append(f'"{w}"')
        elif len(w) == 1:
            terms.append(f"{w}* OR *{w}")
        else:
            terms.append(w[: budget + 1])
        budget -= max(len(w) - 1, 1) if _CJK_RUN.fullmatch(w) else 1
    return " OR ".join(terms)


def pairs_query(question: str) -> str:
    """The query of the ``chunk_pairs`` index (text/pairs.py): the overlapping pairs of the
    grapheme clusters of each Lao, Khmer or Myanmar run of the question, OR-ed bare (no
    character of these scripts is syntax), so "ວຽງຈັນ" finds "…ຫຼວງວຽງຈັນເປັນ…" by any pair
    it shares; '' when the question holds no such run. A run of one cluster goes as the pairs
    it begins or ends, as ``cjk_query`` has a lone character: "မြို့" (city) finds
    "…ဆုံးမြို့ဖြစ်…"."""
    terms: list[str] = []
    for clusters in runs(question):
        if len(clusters) == 1:
            terms.append(f"{clusters[0]}* OR *{clusters[0]}")
        else:
            terms += pairs(clusters)
    return " OR ".join(terms[:MAX_TERMS])


def phrase_query(name: str) -> str:
    """``name``'s words as one Lucene phrase (its terms in a row, as the index's tokenizer
    splits them; no term holds syntax); '' when it has none."""
    words = _words(_TERM, name, ())
    return f'"{" ".join(words)}"' if words else ""
