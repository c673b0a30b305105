"""The relevance gate on a daily-notes vault: a question whose only content is a relative time
("What did I do yesterday?", "Was ist gestern passiert?") is answered by the note dated then —
the date is the whole question, and no note writes "yesterday" — while one that also asks for
something else is judged as ever, and one whose day no note is dated is still refused."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest

from knotwork.answer.respond import answer
from knotwork.core import Core
from knotwork.retrieve import retrieve
from knotwork.retrieve.periods import relative_span
from tests.fakes.ollama import FakeOllama
from tests.integration.test_relevance_gate import _answering, _calibrated


def _days() -> dict[str, date]:
    """The days the notes are dated, from today as the test runs: the retriever reads relative
    times against the real today, and a run that crosses midnight must not date the notes from
    the day its tests were collected."""
    today = date.today()
    return {
        "yesterday": today - timedelta(days=1),
        "last week": relative_span("week", -1, today)[0] + timedelta(days=2),  # its Wednesday
        "long ago": today - timedelta(days=40),
    }


def _journal(day: date, text: str) -> str:
    return f"---\ndate: {day.isoformat()}\n---\n# {day.isoformat()}\n\n{text}\n"


def _dated(day: date) -> str:
    return f"Journal/{day.isoformat()}.md"


CHORES = "Fixed the bike chain, then called grandma about her birthday party."
GARDEN = "# Garden\n\nThe tomatoes in the garden ripen in August; the beans in July.\n"
HOLIDAYS = "# Holidays\n\nWe drove to the lakes in the north and rented a boat.\n"


def _notes(days: dict[str, date], *, yesterday: bool = True) -> dict[str, str]:
    """The vault; without ``yesterday``, yesterday's chores are written long ago instead."""
    chores = days["yesterday" if yesterday else "long ago"]
    fence = "Repainted the fence in the backyard and planted two rows of leeks."
    return {
        _dated(chores): _journal(chores, CHORES),
        _dated(days["last week"]): _journal(days["last week"], fence),
        "Garden.md": GARDEN,
        "Holidays.md": HOLIDAYS,
    }


@pytest.mark.parametrize(
    ("question", "when"),
    [
        ("What did I do yesterday?", "yesterday"),
        ("What happened last week?", "last week"),
        ("Was ist gestern passiert?", "yesterday"),
        ("Was habe ich gestern gemacht?", "yesterday"),
        ("Cosa ho fatto ieri?", "yesterday"),
        ("Cosa è successo la settimana scorsa?", "last week"),
        ("Qu'est-ce que j'ai fait hier ?", "yesterday"),
        ("¿Qué hice ayer?", "yesterday"),
        ("O que fiz ontem?", "yesterday"),
    ],
)
async def test_a_question_of_a_relative_time_alone_is_answered_by_the_note_dated_then(
    core: Core, tmp_path: Path, fake_ollama: FakeOllama, question: str, when: str
) -> None:
    """Nothing of the question is left to cover once its asking and time words are gone; the
    note the temporal retriever finds dated then answers it, and the answer cites it."""
    days = _days()
    await _calibrated(core, tmp_path, "j", _notes(days))
    dated = {_dated(days[when])}
    if when == "last week":  # on a Monday, yesterday is in last week too
        first, last = relative_span("week", -1, date.today())[:2]
        dated = {_dated(d) for d in days.values() if first <= d <= last}
    evidence = await retrieve(core, "j", question, mode="retrieve")
    assert evidence.hits[0].path in dated, (question, [h.path for h in evidence.hits])
    assert evidence.relevance >= core.settings.min_relevance, (question, evidence.relevance)
    _answering(fake_ollama)
    result = await answer(core, question, mode="fast", vault="j")
    assert result.status == "ok", (question, result)
    cited = [c.path for c in result.citations]
    assert cited and set(cited) <= dated, (question, result.citations)


async def test_a_relative_time_no_note_is_dated_in_is_still_refused(
    core: Core, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """No note is dated yesterday: the notes of other days do not answer it, whatever they
    say."""
    await _calibrated(core, tmp_path, "j", _notes(_days(), yesterday=False))
    _answering(fake_ollama)
    for question in ("What did I do yesterday?", "Was ist gestern passiert?"):
        evidence = await retrieve(core, "j", question, mode="retrieve")
        assert evidence.relevance < core.settings.min_relevance, (question, evidence.relevance)
        result = await answer(core, question, mode="fast", vault="j")
        assert result.status == "insufficient_context", (question, result)


async def test_a_question_asking_more_than_a_time_is_judged_by_its_words(
    core: Core, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """The note dated yesterday is found, but the question asks for the capital of Peru,
    which it does not hold: refused, as without the date."""
    await _calibrated(core, tmp_path, "j", _notes(_days()))
    _answering(fake_ollama)
    threshold = core.settings.min_relevance
    question = "What is the capital of Peru, yesterday?"
    evidence = await retrieve(core, "j", question, mode="retrieve")
    assert any("temporal" in h.retrievers for h in evidence.hits), evidence.hits
    assert evidence.relevance < threshold, evidence.relevance
    plain = await retrieve(core, "j", "What is the capital of Peru?", mode="retrieve")
    assert plain.relevance < threshold, plain.relevance
    result = await answer(core, question, mode="fast", vault="j")
    assert result.status == "insufficient_context", result


@pytest.mark.parametrize(
    "question", ["What happened last week?", "Cosa è successo la settimana scorsa?"]
)
async def test_a_note_that_writes_the_time_words_does_not_outrank_the_note_dated_then(
    core: Core, tmp_path: Path, question: str
) -> None:
    """ "week" is the question's time, not its subject: full text does not search it, so an
    undated note that writes it ("three runs per week") is no hit of full text for it."""
    fitness = "# Fitness\n\nThree runs per week, a long one every week; la settimana scorsa no.\n"
    days = _days()
    await _calibrated(core, tmp_path, "w", {**_notes(days), "Fitness.md": fitness})
    evidence = await retrieve(core, "w", question, mode="retrieve")
    paths = [h.path for h in evidence.hits]
    # On a Monday, yesterday is in last week too: either dated note of that week leads.
    first, last = relative_span("week", -1, date.today())[:2]
    in_week = {_dated(d) for d in days.values() if first <= d <= last}
    assert paths[0] in in_week, (question, paths)
    fitness_hits = [h for h in evidence.hits if h.path == "Fitness.md"]
    assert all("fulltext" not in h.retrievers for h in fitness_hits), fitness_hits
