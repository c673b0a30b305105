"""A question as a Lucene query for the full-text indexes: its words, OR-ed and escaped, split
as the indexes' tokenizers split text."""

from __future__ import annotations

import unicodedata
from collections.abc import Collection

import regex

from knotwork.text.scripts import ONE_CHAR_TERM_BLOCKS, THAI_CHARACTERS, char_class

# Han ideographs and hiragana are a term each, as Lucene's tokenizers index them: a run of them
# quoted whole would be a phrase that only the question's exact wording matches.
_ONE_CHAR = char_class(*ONE_CHAR_TERM_BLOCKS)
# A word keeps its combining marks, as the index's tokenizer keeps them (``\w`` alone cuts
# "हिन्दी" at its vowel signs into letters no chunk holds alone).
_THAI_RUN = regex.compile(char_class(*THAI_CHARACTERS) + "+")
_TERM = regex.compile(rf"{_ONE_CHAR}|[[\p{{L}}\p{{N}}\p{{M}}_]--{_ONE_CHAR}]+", regex.V1)


def lucene_query(question: str, drop: Collection[str] = ()) -> str:
    """The question's words (NFC, as notes are indexed), OR-ed and escaped, so no user text is
    read as Lucene syntax; less the words in ``drop`` (case-folded)."""
    words = [
        w for w in _TERM.findall(unicodedata.normalize("NFC", question)) if w.casefold() not in drop
    ][:64]
    # Quoted, so words such as AND, OR, NOT or TO are terms, never operators; a run of Thai
    # bare (nothing in it is syntax), so that the Thai analyzer's words in it are terms each,
    # not one phrase only the question's exact wording matches.
    return " OR ".join(w if _THAI_RUN.fullmatch(w) else f'"{w}"' for w in words)
