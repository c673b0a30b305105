"""Lao, Khmer and Myanmar runs as the pairs of their grapheme clusters (text/pairs.py): what a
chunk keeps for the ``chunk_pairs`` index and what a question is searched there by, alike."""

from __future__ import annotations

import unicodedata

from knotwork.retrieve.lucene import MAX_TERMS, pairs_query
from knotwork.retrieve.search import merged
from knotwork.text.pairs import chunk_pairs


def test_a_run_is_paired_by_grapheme_clusters_each_letter_with_its_marks() -> None:
    assert chunk_pairs("ວຽງຈັນ") == "ວຽ ຽງ ງຈັ ຈັນ"  # ຈັ: the letter and its vowel sign
    assert chunk_pairs("ប្រទេស") == "ប្រទេ ទេស"  # ប្រ: a consonant with the one under it
    assert chunk_pairs("မြန်မာ") == "မြန် န်မ မာ"
    assert chunk_pairs("မြို့") == "မြို့"  # one cluster: itself


def test_spaces_punctuation_digits_and_other_scripts_end_a_run() -> None:
    assert chunk_pairs("ວຽງ ຈັນ, abc ລາວ") == "ວຽ ຽງ ຈັນ ລາ າວ"
    assert chunk_pairs("ភ្នំពេញ។ កម្ពុជា") == "ភ្នំពេ ពេញ កម្ពុ ម្ពុជា"  # ។: Khmer's full stop
    assert chunk_pairs("ရန်ကုန်၂၀၂၄ပုဂံ") == "ရန် န်ကု ကုန် ပုဂံ"  # Myanmar digits


def test_other_text_has_no_pairs() -> None:
    assert chunk_pairs("The worker retries them when they fail.") is None
    assert chunk_pairs("เชียงใหม่เป็นเมือง") is None  # Thai: its own analyzer splits it
    assert chunk_pairs("서울은 한국의 수도입니다 北京") is None  # the `cjk` analyzer pairs these
    assert chunk_pairs("") is None


def test_a_decomposed_text_is_paired_as_the_composed_one() -> None:
    composed = "ဦးနု"  # U+1026 composes from U+1025 U+102E
    decomposed = unicodedata.normalize("NFD", composed)
    assert decomposed != composed
    assert chunk_pairs(decomposed) == chunk_pairs(composed) == "ဦး းနု"


def test_a_question_is_searched_by_the_pairs_of_its_runs() -> None:
    assert pairs_query("ວຽງຈັນຢູ່ໃສ?") == "ວຽ OR ຽງ OR ງຈັ OR ຈັນ OR ນຢູ່ OR ຢູ່ໃ OR ໃສ"
    # Other words are the language indexes' to search; a lone cluster, the pairs it is in.
    assert pairs_query("Where is ວຽງຈັນ?") == "ວຽ OR ຽງ OR ງຈັ OR ຈັນ"
    assert pairs_query("မြို့") == "မြို့* OR *မြို့"
    assert pairs_query("Where is the capital?") == ""
    assert pairs_query("ກ" * 200).split(" OR ") == ["ກກ"] * MAX_TERMS  # Lucene's clause limit


def test_a_chunk_found_by_two_indexes_counts_once_by_its_better_share() -> None:
    language = [{"id": "a", "score": 2.0}, {"id": "b", "score": 1.0}]
    paired = [{"id": "b", "score": 3.0}]
    assert merged([language, paired], 5) == [("a", 1.0), ("b", 1.0)]
    assert merged([language, paired], 1) == [("a", 1.0)]
