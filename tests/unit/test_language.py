"""Telling a note's language from its function words, and the context its chunks carry."""

from __future__ import annotations

import pytest

from knotwork.ingest.chunk import chunk_context, chunk_note
from knotwork.ingest.parse import parse_note
from knotwork.text.language import detect, note_language

PARAGRAPHS = {
    "en": "The multiplexer selects one of several inputs and forwards it to the output, "
    "which is why it is used in every processor.",
    "it": "Il multiplexer seleziona uno degli ingressi e lo inoltra all'uscita: per questo "
    "è usato in ogni processore, anche quando non sembra.",
    "de": "Der Multiplexer wählt einen der Eingänge aus und leitet ihn an den Ausgang weiter, "
    "deshalb wird er in jedem Prozessor verwendet.",
    "fr": "Le multiplexeur choisit une des entrées et la transmet à la sortie : c'est pour "
    "cela qu'il est utilisé dans tous les processeurs.",
    "es": "El multiplexor selecciona una de las entradas y la envía a la salida, por eso se "
    "usa en todos los procesadores y también en las memorias.",
    "pt": "O multiplexador seleciona uma das entradas e a envia para a saída, por isso é "
    "usado em todos os processadores e também nas memórias.",
}


@pytest.mark.parametrize("lang", sorted(PARAGRAPHS))
def test_each_language_is_told_from_one_paragraph(lang: str) -> None:
    assert detect(PARAGRAPHS[lang]) == lang


def test_too_little_text_or_variables_are_not_a_language() -> None:
    assert detect("") is None
    assert detect("Tra") is None
    # One-letter variables of a note on logic are no Spanish "y" nor Italian "e".
    assert detect("x y z\n\ny = x + 1\n\ny e x, x o y") is None


def test_thai_is_told_by_its_script() -> None:
    """Thai writes no word apart, so no function word is found in it: its letters tell it,
    English terms in Thai prose or not."""
    assert detect("เชียงใหม่เป็นเมืองทางภาคเหนือของประเทศไทย") == "th"
    assert detect("การตั้งค่า Neo4j และ Docker สำหรับทีมของเรา") == "th"
    # An English note quoting a Thai word is English; Thai vowel signs and tone marks are no
    # letters to count ("ที่นี่ที่นั่น": 5 letters, 8 marks).
    assert detect("The word ไทย means free, and it is the name of the people of the land.") == "en"
    assert detect("Trip notes: ที่นี่ที่นั่น and the market") == "en"


def test_chinese_japanese_and_korean_are_told_by_their_scripts_together() -> None:
    """Korean writes a word with its particle as one run, Chinese and Japanese no word apart:
    their letters tell them (one language, `cjk`, one index), English terms in them or not."""
    assert detect("서울은 한국의 수도입니다") == "cjk"
    assert detect("北京大学在北京。") == "cjk"
    assert detect("東京タワーはコーヒーの街です") == "cjk"
    assert detect("我们用 Neo4j 和 Docker 部署服务") == "cjk"
    # An English note quoting a name of theirs is English.
    assert detect("The word 北京 means northern capital, and it is the name of the city.") == "en"
    assert detect("Trip notes: 서울 and the market") == "en"
    # Thai stays Thai.
    assert detect("เชียงใหม่เป็นเมืองทางภาคเหนือของประเทศไทย") == "th"


def test_russian_and_arabic_are_told_by_their_scripts() -> None:
    """Cyrillic and Arabic notes get their own analyzers (stemming, letters folded): their
    letters tell them, English terms in them or not; an English note quoting a word is
    English, and the Arabic vowel marks are no letters to count."""
    assert detect("Москва — столица России, в ней живёт много людей.") == "ru"
    assert detect("Мы используем Neo4j и Docker для развёртывания сервиса") == "ru"
    assert detect("القاهرة هي عاصمة مصر وأكبر مدنها") == "ar"
    assert detect("نستخدم Neo4j و Docker لنشر الخدمة") == "ar"
    assert detect("كَتَبَ الطَّالِبُ الدَّرْسَ") == "ar"
    assert detect("The word Москва is the name of the city, and it means nothing more.") == "en"
    assert detect("The word القاهرة is the name of the city, and it means the victorious.") == "en"
    # The scripts told before them stay theirs.
    assert detect("서울은 한국의 수도입니다") == "cjk"
    assert detect("เชียงใหม่เป็นเมืองทางภาคเหนือของประเทศไทย") == "th"


def test_the_setting_wins_and_the_default_fills_in() -> None:
    assert note_language("서울은 한국의 수도입니다", "en", "en") == "en"
    assert note_language(PARAGRAPHS["en"], "cjk", "en") == "cjk"
    assert note_language(PARAGRAPHS["de"], "it", "en") == "it"
    assert note_language(PARAGRAPHS["de"], "auto", "en") == "de"
    assert note_language("x = 1", "auto", "fr") == "fr"


def test_context_names_title_aliases_and_headings_once() -> None:
    assert chunk_context("Teorema", ["regola", "Teorema"], "") == "Teorema (regola)"
    assert chunk_context("Teorema", [], "Teorema > Enunciato") == "Teorema > Enunciato"
    assert chunk_context("Teorema", [], "Esempi") == "Teorema > Esempi"


def test_a_retitle_changes_what_is_embedded_not_what_is_extracted() -> None:
    body = (
        "## Enunciato\n\nSe f e g tendono a zero, il limite del rapporto è quello delle derivate.\n"
    )
    before = chunk_note(parse_note("hopital.md", body), "v", 1200)
    after = chunk_note(
        parse_note("hopital.md", "---\naliases: [de l'Hôpital]\n---\n" + body), "v", 1200
    )
    assert before[0].context == "hopital > Enunciato"
    assert after[0].context == "hopital (de l'Hôpital) > Enunciato"
    assert before[0].hash == after[0].hash  # the extraction is kept
    assert before[0].embed_hash != after[0].embed_hash  # the embedding is redone
