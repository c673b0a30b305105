"""ModelWork: passes run one at a time, a pass asked for while one runs follows it, and a run
of passes is logged once, not pass by pass."""

from __future__ import annotations

import asyncio
import logging

import pytest

from knotwork.errors import ManifestMismatchError
from knotwork.ingest import model_work
from knotwork.ingest.model_work import ModelWork


async def _ran(work: ModelWork) -> None:
    for _ in range(500):
        if not work.running:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the passes never ended")


async def test_a_run_of_passes_is_logged_once_with_its_total(
    caplog: pytest.LogCaptureFixture,
) -> None:
    answers = iter([64, 64, 3, 0])
    limits: list[int] = []

    async def one_pass(limit: int) -> int:
        limits.append(limit)
        return next(answers)

    work = ModelWork(one_pass)
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await _ran(work)
    assert limits == [model_work.MODEL_PASS] * 4  # until a pass does nothing
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert len(said) == 1 and said[0].startswith("pending model work done: 131 chunks in ")


async def test_a_long_run_says_how_far_it_is(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model_work, "PROGRESS_S", 0.0)  # every pass counts as long
    answers = iter([5, 5, 0])

    async def one_pass(limit: int) -> int:
        return next(answers)

    work = ModelWork(one_pass)
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await _ran(work)
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert [s.split(",")[0] for s in said[:2]] == [
        "pending model work: 5 chunks done so far",
        "pending model work: 10 chunks done so far",
    ]
    assert said[2].startswith("pending model work done: 10 chunks")


async def test_a_pass_asked_for_while_one_runs_follows_it() -> None:
    gate = asyncio.Event()
    calls = 0

    async def one_pass(limit: int) -> int:
        nonlocal calls
        calls += 1
        if calls == 1:
            await gate.wait()
        return 0  # nothing done: only the pass asked for meanwhile follows

    work = ModelWork(one_pass)
    work.wanted()
    await asyncio.sleep(0.01)
    work.wanted()  # while the first runs
    gate.set()
    await _ran(work)
    assert calls == 2


async def test_a_stop_ends_the_pass_under_way_and_says_what_was_done(
    caplog: pytest.LogCaptureFixture,
) -> None:
    began = asyncio.Event()
    answers = iter([7])

    async def one_pass(limit: int) -> int:
        try:
            return next(answers)
        except StopIteration:
            began.set()
            await asyncio.Event().wait()  # a model that never answers
            return 0

    work = ModelWork(one_pass)
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await asyncio.wait_for(began.wait(), 5)
        await asyncio.wait_for(work.stop(), 5)
    assert not work.running
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert len(said) == 1 and said[0].startswith("pending model work done: 7 chunks")


async def test_a_graph_reembedded_under_the_work_ends_it_for_its_owner_to_stop(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Not logged as a bug and asked again every period: kept for the watcher, which stops."""
    passes: list[int] = []

    async def one_pass(limit: int) -> int:
        passes.append(limit)
        raise ManifestMismatchError("all-minilm", 384, "nomic-embed-text", 768, changed=True)

    work = ModelWork(one_pass)
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await _ran(work)
    assert len(passes) == 1 and isinstance(work.refused, ManifestMismatchError)
    assert "Restart it" in str(work.refused)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
