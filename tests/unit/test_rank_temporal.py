"""Ranking and temporal parsing: pure functions, checked by hand-computable cases."""

from __future__ import annotations

import math
from datetime import date

import pytest

from knotwork.graph.queries.reads import ScoredId
from knotwork.retrieve import search
from knotwork.retrieve.config import FULL
from knotwork.retrieve.dated_notes import FAR, DatedNotes
from knotwork.retrieve.rank import coverage, personalized_pagerank, rrf, terms
from knotwork.retrieve.search import max_mentioned_by, specificity
from knotwork.retrieve.temporal import DateRange, question_range

TODAY = date(2026, 11, 30)  # a Monday


def test_rrf_sums_reciprocal_ranks_and_keeps_each_retrievers_score() -> None:
    fused, found = rrf({"a": [("x", 0.9), ("y", 0.5)], "b": [("y", 3.0)]})
    assert fused["y"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["x"] == pytest.approx(1 / 61)
    assert found["y"] == {"a": 0.5, "b": 3.0}


def test_a_spaced_ranking_votes_by_how_far_each_score_is_behind_the_best() -> None:
    """ "Quali sono le forme indeterminate dei limiti?": full text's second hit of 80, the
    section headed "Forme indeterminate", holds 86% of the best score, the dense ranking puts
    it 21st; a chunk that matches "limiti" alone (39%) is full text's 12th and dense's 4th.
    By places it outranks the section; by full text's scores it does not."""
    filler = [(f"f{i}", 0.6 - i / 50) for i in range(9)]
    tail = [(f"t{i}", 0.38 - i * 0.28 / 67) for i in range(68)]
    fulltext = [("top", 1.0), ("forme", 0.86), *filler, ("weak", 0.39), *tail]
    near = [(f"v{i}", 0.8 - i / 1000) for i in range(78)]
    vector = [*near[:3], ("weak", 0.77), *near[3:19], ("forme", 0.75), *near[19:]]
    by_place, _ = rrf({"fulltext": fulltext, "vector": vector})
    assert len(fulltext) == len(vector) == 80
    assert by_place["weak"] > by_place["forme"]
    spaced, found = rrf({"fulltext": fulltext, "vector": vector}, spaced={"fulltext"})
    assert spaced["forme"] > spaced["weak"]
    assert found["forme"] == {"fulltext": 0.86, "vector": 0.75}  # scores kept as given
    # The span is rank fusion's: the first votes 1 / (K + 1), the last 1 / (K + n).
    alone, _ = rrf({"fulltext": fulltext}, spaced={"fulltext"})
    assert alone["top"] == pytest.approx(1 / 61)
    assert alone["t67"] == pytest.approx(1 / (60 + len(fulltext)))
    assert rrf({"f": [("a", 2.0), ("b", 2.0)]}, spaced={"f"})[0] == {"a": 1 / 61, "b": 1 / 61}
    assert FULL.spaced == {"fulltext"}


def test_a_walk_from_the_hits_does_not_reorder_the_text_when_nothing_is_named() -> None:
    # Both text retrievers rank x above y; the walk from the hits ranks y first.
    rankings = {
        "vector": [("x", 0.9), ("y", 0.8)],
        "fulltext": [("x", 7.0), ("y", 6.0)],
        "graph": [("y", 0.5)],
    }
    fused, found = rrf(rankings, FULL.weights(0.0))
    assert fused["x"] > fused["y"]
    assert found["y"]["graph"] == 0.5  # still listed, so its path explains the hit
    # PageRank keeps a tie-breaker's say: less than one place's difference near the top.
    assert 0 < FULL.weights(0.0)["ppr"] == FULL.hits_ppr_weight < 1
    # A named note gives the walk and PageRank the named weight: the walk leads.
    fused, _ = rrf(rankings, FULL.weights(1.0))
    assert fused["y"] > fused["x"]
    assert FULL.weights(1.0) == {"names": 2.0, "graph": 2.0, "ppr": 2.0}


def test_specificity_is_a_log_scaled_inverse_document_frequency() -> None:
    assert specificity(0, 45) == 1.0 and specificity(2, 45) == 1.0  # a few notes: specific
    assert specificity(25, 45) == pytest.approx(1 - math.log(26) / math.log(46))  # "api"
    assert specificity(45, 45) == 0.0
    assert specificity(1, 6000) > specificity(10, 6000) > specificity(100, 6000)
    assert specificity(5, 1) == 1.0  # a one-note vault has nothing to compare with


def test_max_mentioned_by_is_the_specificity_bound() -> None:
    for notes in (3, 10, 45, 1000, 6000, 100_000):
        bound = max_mentioned_by(notes, 0.5)
        assert specificity(bound, notes) >= 0.5 or bound == 2
        assert specificity(bound + 1, notes) < 0.5 or bound + 1 <= 2
    assert max_mentioned_by(45, 0.5) == 5 and max_mentioned_by(6000, 0.5) == 76
    assert max_mentioned_by(10, 0.5) == 2  # never below the few that are always specific


def test_pagerank_reaches_a_bridge_two_hops_from_the_seed() -> None:
    edges = [("q", "bridge", 1.0), ("bridge", "answer", 1.0), ("noise", "other", 1.0)]
    rank = personalized_pagerank(edges, {"q": 1.0}, damping=0.85)
    assert rank["answer"] > 0 and rank.get("noise", 0.0) == 0.0
    assert rank["bridge"] > rank["answer"]  # mass fades with each hop from the seed
    assert sum(rank.values()) == pytest.approx(1.0)


def test_pagerank_damping_trades_reach_for_focus() -> None:
    edges = [("q", "a", 1.0), ("a", "b", 1.0)]
    near = personalized_pagerank(edges, {"q": 1.0}, damping=0.5)
    far = personalized_pagerank(edges, {"q": 1.0}, damping=0.85)
    assert far["b"] > near["b"]


def test_coverage_ignores_stop_words_in_six_languages() -> None:
    assert terms("Who is the mother of Ada?") == ["mother", "ada"]
    assert terms("Chi è la madre di Ada?") == ["madre", "ada"]
    assert coverage(terms("Who is the mother of Ada?"), "Ada's mother was Anne.") == 1.0
    assert coverage(terms("quantum lattice"), "Ada's mother was Anne.") == 0.0


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("What happened on 2024-03-05?", date(2024, 3, 5), date(2024, 3, 5)),
        ("Cosa è successo il 5 marzo 2024?", date(2024, 3, 5), date(2024, 3, 5)),
        ("Was war im März 2024?", date(2024, 3, 1), date(2024, 3, 31)),
        ("Qu'ai-je fait la semaine dernière ?", date(2026, 11, 23), date(2026, 11, 29)),
        ("¿Qué pasó ayer?", date(2026, 11, 29), date(2026, 11, 29)),
        ("O que fiz no mês passado?", date(2026, 10, 1), date(2026, 10, 31)),
        ("Notes from 2019", date(2019, 1, 1), date(2019, 12, 31)),
        ("What did I write last year?", date(2025, 1, 1), date(2025, 12, 31)),
    ],
)
def test_question_dates_in_six_languages(question: str, start: date, end: date) -> None:
    assert question_range(question, TODAY) == DateRange(start, end)


def test_no_date_means_no_temporal_retrieval() -> None:
    assert question_range("Who works with Alice?", TODAY) is None
    assert question_range("Room 101 and 42 apples", TODAY) is None


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("Cosa ho scritto nel 2019?", date(2019, 1, 1), date(2019, 12, 31)),
        ("Was habe ich im Jahr 2019 gemacht?", date(2019, 1, 1), date(2019, 12, 31)),
        ("Qu'ai-je écrit en 2019 ?", date(2019, 1, 1), date(2019, 12, 31)),
        ("¿Qué escribí en el año 2019?", date(2019, 1, 1), date(2019, 12, 31)),
        ("O que escrevi em 2019?", date(2019, 1, 1), date(2019, 12, 31)),
        ("What changed between 2018 and 2020?", date(2018, 1, 1), date(2020, 12, 31)),
        ("Cosa è cambiato dal 2018 al 2020?", date(2018, 1, 1), date(2020, 12, 31)),
        ("Wann war das Treffen 2019?", date(2019, 1, 1), date(2019, 12, 31)),
        ("¿Cuándo fue la reunión, 2021?", date(2021, 1, 1), date(2021, 12, 31)),
    ],
)
def test_a_year_placed_in_time_asks_about_time(question: str, start: date, end: date) -> None:
    assert question_range(question, TODAY) == DateRange(start, end)


@pytest.mark.parametrize(
    "question",
    [
        "Who wrote the 2019 paper by Rossi?",
        "What did Rossi argue in the 2019 paper?",
        "When did the 2019 conference start?",
        "Where was the director of film The Ape (2005 Film) born?",
        "Who is Archduchess Maria Antonia Of Austria (1899\u20131977)'s maternal grandfather?",
        "Where was the composer of film Love Story 1999 born?",
        "Cosa dimostra il teorema di Gödel del 1931?",
        "Wer hat die Fußball-Weltmeisterschaft 2014 gewonnen?",
    ],
)
def test_a_year_in_a_name_is_not_a_time_question(question: str) -> None:
    """A bare year qualifies a name: the temporal retriever stays out (it used to run)."""
    assert question_range(question, TODAY) is None


def test_dated_notes_answer_nearest_the_middle_then_by_path() -> None:
    """The kept dated notes answer as search_temporal.cypher: each note at its date nearest
    the range's middle, ties by path, the first ``k`` taken before notes without chunks drop."""
    dated = DatedNotes.from_row(
        {
            "paths": ["b.md", "a.md", "c.md", "empty.md", "far.md"],
            "dates": [
                ["2024-03-10", "2024-05-01"],
                ["2024-03-20"],
                ["2024-03-16", "2023-01-01"],
                ["2024-03-15"],
                ["2024-04-30"],
            ],
            "chunks": ["b#0", "a#0", "c#0", "", "far#0"],
        }
    )
    march = DateRange(date(2024, 3, 1), date(2024, 3, 31))  # middle: 16 March
    assert dated.nearest(march, 10) == [("c#0", 1.0), ("a#0", 1 / 5), ("b#0", 1 / 7)]
    assert dated.nearest(march, 2) == [("c#0", 1.0)]  # the chunkless note took a place
    spring = DateRange(date(2024, 3, 1), date(2024, 5, 31))  # middle: 15 April
    assert [c for c, _ in dated.nearest(spring, 10)][:2] == ["far#0", "b#0"]  # b: 1 May
    assert dated.nearest(DateRange(date(2030, 1, 1), date(2030, 12, 31)), 10) == []


def test_a_date_that_is_no_calendar_date_is_never_near() -> None:
    """A note dated only by a string that sorts in the range but is no calendar date (30
    February) is kept as far away as search_temporal.cypher keeps it, after every real date."""
    dated = DatedNotes.from_row(
        {
            "paths": ["odd.md", "real.md"],
            "dates": [["2024-02-30"], ["2024-02-01"]],
            "chunks": ["o#0", "r#0"],
        }
    )
    span = DateRange(date(2024, 2, 1), date(2024, 3, 31))  # "2024-02-30" sorts inside it
    away = (span.middle - date(2024, 2, 1)).days
    assert dated.nearest(span, 10) == [("r#0", 1 / (1 + away)), ("o#0", 1 / (1 + FAR))]


@pytest.mark.parametrize(
    ("question", "span"),
    [
        ("What happened between January 2023 and March 2023?", ("2023-01-01", "2023-03-31")),
        ("tra gennaio 2023 e marzo 2023", ("2023-01-01", "2023-03-31")),
        ("Notes from March 2023 to May 2023", ("2023-03-01", "2023-05-31")),
        ("on 5 March 2024 and in April 2024", ("2024-03-05", "2024-04-30")),
        ("What was planned for 5 March 2024?", ("2024-03-05", "2024-03-05")),
    ],
)
def test_every_month_a_question_names_counts(question: str, span: tuple[str, str]) -> None:
    """Not the first one only; a month a full date names says no more than that day."""
    found = question_range(question, TODAY)
    assert found is not None and (found.start.isoformat(), found.end.isoformat()) == span


@pytest.mark.parametrize(
    ("question", "day"),
    [
        ("Was steht hier über Kubernetes?", None),  # German "hier" is "here"
        ("Qu'est-ce que j'ai fait hier ?", "2026-11-29"),
        ("hier", "2026-11-29"),
        ("Was habe ich heute Morgen gemacht?", "2026-11-30"),  # this morning: today
        ("Was ist morgen geplant?", "2026-12-01"),
        ("¿Qué hice por la mañana?", None),  # in the morning
        ("¿Qué tengo mañana?", "2026-12-01"),
    ],
)
def test_a_word_that_is_a_date_only_in_another_language_or_sense_is_not_one(
    question: str, day: str | None
) -> None:
    found = question_range(question, TODAY)
    assert (found.start.isoformat() if found else None) == day
    assert found is None or found.start == found.end


def test_full_text_pages_merge_by_share_of_their_own_best() -> None:
    """Each index's hits score their share of that index's best; a tie goes to the earlier
    index, then to the higher BM25 score; an empty page or one of zero scores adds nothing."""
    italian: list[ScoredId] = [{"id": "a", "score": 8.0}, {"id": "b", "score": 2.0}]
    english: list[ScoredId] = [{"id": "c", "score": 0.5}, {"id": "d", "score": 0.25}]
    zero: list[ScoredId] = [{"id": "z", "score": 0.0}]
    assert search.merged([italian, english, [], zero], 3) == [
        ("a", 1.0),
        ("c", 1.0),
        ("d", 0.5),
    ]
    assert search.merged([italian, english], 10)[-1] == ("b", 0.25)


@pytest.mark.parametrize(
    "question", ["What happened in March 0000?", "on 5 March 0000", "notes of 0000-03-05"]
)
def test_a_year_no_calendar_holds_is_no_date(question: str) -> None:
    """Year 0 names no date: no temporal retrieval (it raised, a 500 for the question)."""
    assert question_range(question, TODAY) is None
