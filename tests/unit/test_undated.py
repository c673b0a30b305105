"""The question as the embedder gets it: without the periods the temporal side reads
(retrieve/undated.py), so "in March 2025" does not pull the vector search to dated text."""

from __future__ import annotations

from datetime import date

import pytest

from knotwork.retrieve.undated import undated

TODAY = date(2026, 11, 30)


@pytest.mark.parametrize(
    ("question", "embedded"),
    [
        ("What did I decide about the roof in March 2025?", "What did I decide about the roof?"),
        ("What did I do last summer with Anna?", "What did I do with Anna?"),
        ("What happened in March last year at work?", "What happened at work?"),
        ("Who did I meet between 2018 and 2020 in Rome?", "Who did I meet in Rome?"),
        ("Cosa ho deciso nel marzo 2025 sul tetto?", "Cosa ho deciso sul tetto?"),
        ("Was war im März letzten Jahres im Büro?", "Was war im Büro?"),
        ("Qu\u2019ai-je lu l\u2019été dernier ?", "Qu\u2019ai-je lu?"),
        (
            "Which notes did I write last week about Zephyr?",
            "Which notes did I write about Zephyr?",
        ),
    ],
)
def test_the_periods_a_question_names_are_not_embedded(question: str, embedded: str) -> None:
    assert undated(question, TODAY) == embedded


@pytest.mark.parametrize(
    "question",
    [
        "What is a flip-flop?",  # no period: whole
        "last week?",  # nothing but the period: whole, never a blank text
        "What happened on 5 March 2024?",  # a day, not a period
        "What did I do in March?",  # a bare month: a note that writes "March" may answer it
        "What did the 2019 paper find?",  # a year that qualifies a name
    ],
)
def test_a_question_without_a_period_to_cut_is_embedded_whole(question: str) -> None:
    assert undated(question, TODAY) == question
