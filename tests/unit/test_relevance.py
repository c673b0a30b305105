"""The relevance scale: a calibrated floor lands on the threshold, coverage is left alone."""

from __future__ import annotations

import statistics

import pytest

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


# The best cosines of the 16 Italian probes against vault-it-sapienza under USE multilingual
# (bench/RESULTS.md), and two off-topic questions of bench/data/it-sapienza that score towards
# the top of that spread ("Qual è la montagna più alta d'Europa?", "Qual è la capitale della
# Francia?").
USE_IT_PROBES = [0.101, 0.112, 0.117, 0.138, 0.141, 0.15, 0.16, 0.161, 0.163, 0.169, 0.169]
USE_IT_PROBES += [0.177, 0.184, 0.186, 0.194, 0.203]
USE_IT_OFF_TOPIC = [0.21, 0.22]


def test_the_floor_stands_above_the_probes_by_their_spread() -> None:
    narrow = [0.30] * 8 + [0.31] * 6 + [0.40, 0.41]
    wide = [0.10, 0.15, 0.20, 0.22, 0.25, 0.27, 0.28, 0.29, 0.30, 0.30, 0.31] + [0.31] * 3
    wide += [0.40, 0.41]
    q90 = statistics.quantiles(narrow, n=100, method="inclusive")[89]
    assert q90 == statistics.quantiles(wide, n=100, method="inclusive")[89]
    # The same 90th percentile; the probes that spread wider put the floor higher.
    assert floor_of(wide) > floor_of(narrow) + 0.05
    # Under a model that spreads unrelated cosines, off-topic questions a little nearer the
    # vault than the probes stay under the floor: they are refused once calibrated.
    floor = floor_of(USE_IT_PROBES)
    assert floor > max(USE_IT_PROBES)
    for cosine in USE_IT_OFF_TOPIC:
        assert rescale(cosine, floor, 0.29) < 0.29
    # A floor never falls below the probes' trimmed mean plus the margin.
    assert floor_of([0.2] * 16) == pytest.approx(0.22)


def test_every_language_has_its_probes() -> None:
    assert sorted(PROBES) == ["de", "en", "es", "fr", "it", "pt"]
    assert all(len(set(qs)) == 16 for qs in PROBES.values())
