"""Months and seasons placed relative to today: "last March", "l'estate scorsa", … (pure)."""

from __future__ import annotations

from datetime import date

import pytest

from knotwork.retrieve.rank import asked
from knotwork.retrieve.relevance import relevance
from knotwork.retrieve.temporal import DateRange, question_range
from knotwork.retrieve.types import Hit

TODAY = date(2026, 11, 30)  # a Monday, late in the year: "last March" is this year's
MARCH = date(2026, 3, 15)  # in March: "last March" is a year ago


def _span(question: str, today: date = TODAY) -> tuple[str, str] | None:
    found = question_range(question, today)
    return (found.start.isoformat(), found.end.isoformat()) if found else None


@pytest.mark.parametrize(
    ("question", "span"),
    [
        ("What happened last March?", ("2026-03-01", "2026-03-31")),
        ("What did I plan for next March?", ("2027-03-01", "2027-03-31")),
        ("What did we ship this June?", ("2026-06-01", "2026-06-30")),
        ("Notes from last May", ("2026-05-01", "2026-05-31")),
        ("Last March I moved to Berlin: what did I write?", ("2026-03-01", "2026-03-31")),
        ("What did we do over the past summer?", ("2026-06-01", "2026-08-31")),
        ("What did I do last summer?", ("2026-06-01", "2026-08-31")),
        ("What is planned for this winter?", ("2026-12-01", "2027-02-28")),
        ("What happened last fall?", ("2025-09-01", "2025-11-30")),  # today is in autumn
        ("What is due next spring?", ("2027-03-01", "2027-05-31")),
        ("What happened in March last year?", ("2025-03-01", "2025-03-31")),
        ("Cosa è successo lo scorso marzo?", ("2026-03-01", "2026-03-31")),
        ("Cosa ho fatto l'estate scorsa?", ("2026-06-01", "2026-08-31")),
        ("Cosa ho fatto quest\u2019estate?", ("2026-06-01", "2026-08-31")),
        ("Cosa è successo a marzo dell'anno scorso?", ("2025-03-01", "2025-03-31")),
        ("Was war letzten Sommer?", ("2026-06-01", "2026-08-31")),
        ("Was war im letzten März?", ("2026-03-01", "2026-03-31")),
        ("Was war im März letzten Jahres?", ("2025-03-01", "2025-03-31")),
        ("Qu'ai-je fait l'été dernier ?", ("2026-06-01", "2026-08-31")),
        ("Que s'est-il passé en mars dernier ?", ("2026-03-01", "2026-03-31")),
        ("Qu'est-ce qui est prévu cet hiver ?", ("2026-12-01", "2027-02-28")),
        ("Qu'ai-je fait en mars de l'année dernière ?", ("2025-03-01", "2025-03-31")),
        ("¿Qué pasó el verano pasado?", ("2026-06-01", "2026-08-31")),
        ("¿Qué hay para el próximo invierno?", ("2026-12-01", "2027-02-28")),
        ("¿Qué pasó en marzo del año pasado?", ("2025-03-01", "2025-03-31")),
        ("O que fiz no verão passado?", ("2026-06-01", "2026-08-31")),
        ("O que aconteceu em março do ano passado?", ("2025-03-01", "2025-03-31")),
    ],
)
def test_a_month_or_season_relative_to_today(question: str, span: tuple[str, str]) -> None:
    assert _span(question) == span


@pytest.mark.parametrize(
    ("question", "span"),
    [
        ("What happened last March?", ("2025-03-01", "2025-03-31")),  # not the one under way
        ("What happened this March?", ("2026-03-01", "2026-03-31")),
        ("What is planned for next March?", ("2027-03-01", "2027-03-31")),
        ("What happened last winter?", ("2025-12-01", "2026-02-28")),
        ("What is planned for this spring?", ("2026-03-01", "2026-05-31")),
    ],
)
def test_last_is_the_latest_that_ended_and_this_the_one_under_way(
    question: str, span: tuple[str, str]
) -> None:
    assert _span(question, MARCH) == span


def test_this_winter_in_january_is_the_one_that_began_in_december() -> None:
    assert _span("this winter", date(2027, 1, 15)) == ("2026-12-01", "2027-02-28")
    assert _span("last winter", date(2027, 1, 15)) == ("2025-12-01", "2026-02-28")


@pytest.mark.parametrize(
    "question",
    [
        "Why this may fail?",  # the verb, not the month
        "Who owns this estate?",  # English, not Italian "summer"
        "Il a été dernier au classement ?",  # "came last", not "last summer"
        "What did the summer school teach?",
        "Who won the last Summer Olympics?",  # a name, not last summer
        "Who won last March Madness?",
        "What happened in the last summer of the war?",  # the final one, not the previous
        "Where will the next Winter Games be held?",
    ],
)
def test_a_word_that_only_looks_like_a_period_is_none(question: str) -> None:
    assert question_range(question, TODAY) is None


def test_a_dated_month_keeps_its_year() -> None:
    assert _span("What happened last March 2024?") == ("2024-03-01", "2024-03-31")


@pytest.mark.parametrize(
    ("question", "span"),
    [
        ("Qu\u2019ai-je fait aujourd\u2019hui ?", ("2026-11-30", "2026-11-30")),
        ("Cosa ho fatto la scorsa settimana?", ("2026-11-23", "2026-11-29")),
        ("Qu'ai-je fait l'an dernier ?", ("2025-01-01", "2025-12-31")),
        ("Was war vergangene Woche?", ("2026-11-23", "2026-11-29")),
        ("O que tenho no mês que vem?", ("2026-12-01", "2026-12-31")),
        ("O que aconteceu em 5 de novembro de 2024?", ("2024-11-05", "2024-11-05")),
    ],
)
def test_more_relative_phrases_and_typographic_apostrophes(
    question: str, span: tuple[str, str] | None
) -> None:
    """A typographic apostrophe is the plain one; common word orders of the phrases count;
    Portuguese November is a month."""
    assert _span(question) == span


def test_a_period_in_a_question_range_is_a_date_range() -> None:
    assert question_range("last March", TODAY) == DateRange(date(2026, 3, 1), date(2026, 3, 31))


@pytest.mark.parametrize(
    ("question", "about"),
    [
        ("What happened at the lake last summer?", ["lake"]),
        ("Who did I meet at the lake yesterday?", ["meet", "lake"]),
        ("Was war letzte Woche im Büro?", ["büro"]),
        ("¿Qué pasó en la playa el verano pasado?", ["playa"]),
        ("Who was the last king?", ["last", "king"]),  # no time asked: "last" is asked of notes
    ],
)
def test_the_words_of_a_relative_time_are_not_asked_of_the_notes(
    question: str, about: list[str]
) -> None:
    """A journal note dated last July answers "last summer" by its date: it does not write
    "last" or "summer", and the relevance gate held the question to them (1 word in 3)."""
    assert asked(question) == about


def test_a_note_dated_then_is_as_relevant_as_its_words_make_it() -> None:
    hit = Hit("c", "Journal/2026-07-04.md", "2026-07-04", "", 1, 3, "We swam at the lake.", 0.1)
    assert relevance("What happened at the lake last summer?", [hit], None, 0.29) == 1.0


@pytest.mark.parametrize(
    ("question", "today", "span"),
    [
        ("What did I do in March?", TODAY, ("2026-03-01", "2026-03-31")),
        ("What did I do in March?", date(2026, 2, 10), ("2025-03-01", "2025-03-31")),
        ("Who did I meet in November?", TODAY, ("2026-11-01", "2026-11-30")),  # under way
        ("What did I read in the summer?", TODAY, ("2026-06-01", "2026-08-31")),
        ("What did I read during the winter?", TODAY, ("2025-12-01", "2026-02-28")),
        ("Cosa ho fatto a marzo?", TODAY, ("2026-03-01", "2026-03-31")),
        ("Cosa ho letto d'estate?", TODAY, ("2026-06-01", "2026-08-31")),
        ("Was war im März?", TODAY, ("2026-03-01", "2026-03-31")),
        ("Qu'ai-je fait en mars ?", TODAY, ("2026-03-01", "2026-03-31")),
        ("Qu'ai-je lu au printemps ?", TODAY, ("2026-03-01", "2026-05-31")),
        ("¿Qué hice en verano?", TODAY, ("2026-06-01", "2026-08-31")),
        ("O que fiz no verão?", TODAY, ("2026-06-01", "2026-08-31")),
        # the modifier or the year says which one, not the preposition
        ("What happened in March last year?", TODAY, ("2025-03-01", "2025-03-31")),
        ("Que s'est-il passé en mars dernier ?", MARCH, ("2025-03-01", "2025-03-31")),
        ("What happened in March 2024?", TODAY, ("2024-03-01", "2024-03-31")),
    ],
)
def test_a_month_or_season_after_a_preposition_is_its_latest_begun(
    question: str, today: date, span: tuple[str, str]
) -> None:
    """ "in March" asks about the March a journal last had, as "last March" does, but the one
    under way counts ("in November", asked in November)."""
    assert _span(question, today) == span


@pytest.mark.parametrize(
    "question",
    ["Who won in March Madness?", "This may fail in may", "What was in the March issue?"],
)
def test_a_preposition_before_a_name_that_is_no_period_places_nothing(question: str) -> None:
    assert question_range(question, TODAY) is None


def test_the_month_after_a_preposition_is_still_asked_of_the_notes() -> None:
    """A note that writes "in March we moved" answers "What did we do in March?" by its words
    too: only a modifier's phrase ("last March") asks by date alone."""
    assert "march" in asked("What did we do in March?")
    assert "march" not in asked("What did we do last March?")
