"""Loose names: what a question names a note by besides its exact name (text/keys.py)."""

from __future__ import annotations

import pytest

from knotwork.text.keys import content_words, loose_grams, loose_key


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("multiplexer (MUX)", "multiplexer"),  # one word besides its parentheses
        ("half adder (HA)", "half adder"),
        ("proprietà e tipi di relazioni", "proprietà tipi relazioni"),
        ("massimo e minimo", "massimo minimo"),
        ("complemento a 2 (CA2)", "complemento 2"),
        ("Funzione Calcolabile", "funzione calcolabile"),
        ("Princess (2010 film)", "princess"),
    ],
)
def test_a_loose_key_is_the_titles_content_words(name: str, key: str) -> None:
    assert loose_key(name) == key


@pytest.mark.parametrize(
    "name",
    [
        "Il teorema",  # one content word left by dropping stop words: every "teorema" would name it
        "Tra",  # stop words only
        "(draft)",  # nothing outside the parentheses
        "ab (x)",  # too short
        "one two three four five six seven",  # longer than any name matched
    ],
)
def test_a_name_that_would_match_too_much_has_no_loose_key(name: str) -> None:
    assert loose_key(name) is None


def test_a_questions_loose_grams_skip_its_stop_words() -> None:
    grams = loose_grams("Tra le proprietà e i tipi di relazioni, quando è un'equivalenza?")
    assert "proprietà tipi relazioni" in grams
    assert loose_key("proprietà e tipi di relazioni") in grams
    assert not any(word in grams for word in ("tra", "le", "e", "i", "di", "quando"))
    assert loose_key("massimo e minimo") in loose_grams("è per forza di massimo o di minimo?")


def test_content_words_compare_a_loose_key_with_an_exact_one() -> None:
    assert content_words("princess maria of greece") == "princess maria greece"
    assert f" {content_words('princess')} " in f" {content_words('princess maria of greece')} "
