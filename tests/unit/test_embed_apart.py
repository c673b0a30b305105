"""A text the embedding model answers garbage for holds back no other text's vector: the slice
whose answer is refused is asked again in halves down to single texts, and only the texts the
model refuses alone are left out (None). A model that refuses every text, or is down, is not
asked apart: that would cost calls for nothing."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import AsyncIterator

import pytest

from knotwork.core import open_core
from knotwork.ingest.modelcalls import ModelCalls
from knotwork.llm import vectors
from knotwork.llm.vectors import PROBE_TEXT
from tests.conftest import make_settings
from tests.fakes.ollama import FakeOllama, hash_embedding

MARK = "Poison"  # the word of the one text the model answers NaN for
BATCH = 2  # texts a request: a slice is 4 batches, 8 texts
TEXTS = [f"note {i} on rivers and the sea" for i in range(20)]
TEXTS[13] = f"note 13 {MARK} on rivers"  # in the second slice (texts 8 to 15)
REFUSED = "answers vectors that cannot be stored"


def _poison(texts: list[str], dimension: int) -> list[list[float]]:
    """NaN for the texts with the marker word, the fake's own vectors for the others."""
    return [
        [float("nan")] * dimension if MARK in t else hash_embedding(t, dimension) for t in texts
    ]


@pytest.fixture(autouse=True)
def no_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    """embed_batch's pause before asking a failed call again."""

    async def instantly(_: float) -> None:
        return None

    monkeypatch.setattr(vectors.asyncio, "sleep", instantly)


@pytest.fixture
async def calls(fake_ollama: FakeOllama) -> AsyncIterator[ModelCalls]:
    settings = make_settings(
        ollama_base_url=fake_ollama.base_url, embed_batch_size=BATCH, neo4j_password="unused"
    )
    async with open_core(settings) as core:
        yield ModelCalls(core, "v", extract_enabled=False, embed_enabled=True, model_tag="m")


def _warned(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


async def test_only_the_text_the_model_answers_garbage_for_is_left_without_a_vector(
    calls: ModelCalls, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    fake_ollama.embed_script = _poison
    caplog.set_level(logging.WARNING, logger="knotwork")
    got = await calls.embed(TEXTS)
    assert got is not None and len(got) == len(TEXTS)
    assert got[13] is None
    for text, vector in zip(TEXTS, got, strict=True):
        if text != TEXTS[13]:
            assert vector == pytest.approx(hash_embedding(text, 768)), text
    asked = Counter(fake_ollama.embedded_texts())
    # The healthy slices were asked once; the refused one was asked again apart: the probe,
    # then halves down to the bad text alone (its slice, half, quarter, then itself).
    assert all(asked[t] == 1 for t in TEXTS[:8] + TEXTS[16:]), asked
    assert asked[PROBE_TEXT] == 1 and asked[TEXTS[13]] == 4, asked
    [said] = _warned(caplog)
    assert REFUSED in said and "for 1 of 20 texts (the others embedded)" in said, said

    # The next pass asks again for the bad text alone: not said again, and no probe (nothing
    # to tell apart in a call of one text).
    fake_ollama.calls.clear()
    assert await calls.embed([TEXTS[13]]) == [None]
    assert fake_ollama.embedded_texts() == [TEXTS[13]]
    assert len(_warned(caplog)) == 1


async def test_a_model_that_answers_garbage_for_every_text_is_not_asked_apart(
    calls: ModelCalls, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    """The probe is refused too: the call gives nothing (as before), for the cost of one
    more text, not of twice as many calls as the slice has texts."""
    fake_ollama.embed_script = lambda texts, dimension: [[0.0] * dimension for _ in texts]
    caplog.set_level(logging.WARNING, logger="knotwork")
    assert await calls.embed(TEXTS) is None
    assert Counter(fake_ollama.embedded_texts()) == Counter([*TEXTS[:8], PROBE_TEXT])
    [said] = _warned(caplog)
    assert "a zero vector" in said and "texts (the others" not in said, said


async def test_a_model_down_is_not_asked_apart(calls: ModelCalls, fake_ollama: FakeOllama) -> None:
    """A model down (HTTP 503 here; refused connections and time-outs alike) stops the call
    at its first slice, its batches asked at most twice (embed_batch's second try), never
    probed or asked in halves."""
    fake_ollama.down = True
    assert await calls.embed(TEXTS) is None
    asked = Counter(fake_ollama.embedded_texts())
    assert asked and set(asked) <= set(TEXTS[:8]), asked  # the first slice's texts alone
    assert max(asked.values()) <= 2, asked
    assert calls.embed_down  # let be for a while, as before
    fake_ollama.calls.clear()
    assert await calls.embed(TEXTS) is None  # in its back-off: not asked at all
    assert not fake_ollama.calls


@pytest.fixture
async def one_request(fake_ollama: FakeOllama) -> AsyncIterator[ModelCalls]:
    """Model calls whose batch holds a slice of 128 texts: each ask of a half is one request."""
    settings = make_settings(
        ollama_base_url=fake_ollama.base_url, embed_batch_size=128, neo4j_password="unused"
    )
    async with open_core(settings) as core:
        yield ModelCalls(core, "v", extract_enabled=False, embed_enabled=True, model_tag="m")


WIDE = [f"wide note {i} on hills" for i in range(128)]


async def test_asking_apart_costs_a_bounded_few_requests_when_every_text_is_refused(
    one_request: ModelCalls, fake_ollama: FakeOllama
) -> None:
    """Every text refused but the probe: the texts not told apart within the budget count as
    refused, for a few dozen requests, not twice as many as texts."""
    fake_ollama.embed_script = lambda texts, dimension: [
        hash_embedding(t, dimension) if t == PROBE_TEXT else [0.0] * dimension for t in texts
    ]
    embedder = await one_request.core.load_embedder()
    fake_ollama.calls.clear()  # loading may ask the model once
    refusal = vectors.VectorsRejectedError("returned a zero vector")
    got = await vectors.embed_apart(embedder, WIDE, 768, refusal)
    assert got == [None] * len(WIDE)
    requests = len(fake_ollama.calls_to("/api/embed"))
    assert requests == 1 + vectors.apart_asks(len(WIDE)) == 65, requests  # probe + budget
    assert len(fake_ollama.embedded_texts()) < 6 * len(WIDE)


async def test_one_bad_text_of_128_is_still_found_within_the_budget(
    one_request: ModelCalls, fake_ollama: FakeOllama
) -> None:
    wide = [*WIDE]
    wide[77] = f"wide note 77 {MARK}"
    fake_ollama.embed_script = _poison
    got = await one_request.embed(wide)
    assert got is not None and [i for i, v in enumerate(got) if v is None] == [77]
    assert all(
        v == pytest.approx(hash_embedding(t, 768)) for t, v in zip(wide, got, strict=True) if v
    ), got


async def test_two_bad_texts_of_128_in_either_half_leave_every_other_text_embedded(
    one_request: ModelCalls, fake_ollama: FakeOllama
) -> None:
    """Two bad texts cost twice one's halvings: the budget holds them, so no good text of
    the slice is left refused beside them."""
    wide = [*WIDE]
    for i in (10, 100):
        wide[i] = f"wide note {i} {MARK}"
    fake_ollama.embed_script = _poison
    got = await one_request.embed(wide)
    assert got is not None and [i for i, v in enumerate(got) if v is None] == [10, 100]


async def test_a_refusal_of_every_text_of_a_call_does_not_say_the_others_embedded(
    calls: ModelCalls, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    fake_ollama.embed_script = _poison
    caplog.set_level(logging.WARNING, logger="knotwork")
    assert await calls.embed([TEXTS[13]]) == [None]
    [said] = _warned(caplog)
    assert "for 1 of 1 text" in said and "others" not in said, said
