"""The relevance scale: a calibrated floor lands on the threshold, coverage is left alone."""

from __future__ import annotations

from knotwork.retrieve.probes import PROBES
from knotwork.retrieve.relevance import floor_of, relevance, rescale
from knotwork.retrieve.types import Hit


def _hit(cosine: float, text: str = "unrelated words") -> Hit:
    return Hit("c", "n.md", "n", "", 1, 1, text, 0.1, {"vector": (1 + cosine) / 2})


def test_the_floor_maps_to_the_threshold_and_one_to_one() -> None:
    assert rescale(0.5, 0.5, 0.29) == 0.29
    assert rescale(1.0, 0.5, 0.29) == 1.0
    assert rescale(0.45, 0.5, 0.29) < 0.29 < rescale(0.55, 0.5, 0.29)
    assert rescale(0.4, None, 0.29) == 0.4  # uncalibrated: the cosine itself


def test_an_off_topic_cosine_of_a_generous_model_is_refused_once_calibrated() -> None:
    # A model under which unrelated Italian questions score 0.5 against the notes.
    question = "Qual è la capitale della Francia?"
    hits = [_hit(0.52)]
    assert relevance(question, hits, None, 0.29) >= 0.29  # uncalibrated: let through
    assert relevance(question, hits, floor_of([0.45, 0.5, 0.52, 0.55]), 0.29) < 0.29
    # Words of the question in the evidence still count in full.
    worded = [_hit(0.52, "Parigi è la capitale della Francia.")]
    assert relevance(question, worded, 0.6, 0.29) == 1.0


def test_the_floor_stands_above_most_probes_not_all() -> None:
    cosines = [0.2 + i / 100 for i in range(20)] + [0.9]  # one probe the vault answers
    assert 0.38 < floor_of(cosines) < 0.5


def test_every_language_has_its_probes() -> None:
    assert sorted(PROBES) == ["de", "en", "es", "fr", "it", "pt"]
    assert all(len(set(qs)) == 16 for qs in PROBES.values())
