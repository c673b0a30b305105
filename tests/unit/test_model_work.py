"""ModelWork: passes run one at a time, a pass asked for while one runs follows it, and a run
of passes is logged once, not pass by pass: how far it is of how much, and at its end done, or
stopped with what it left."""

from __future__ import annotations

import asyncio
import logging

import pytest

from knotwork.errors import GraphUnavailableError, ManifestMismatchError
from knotwork.ingest import model_work
from knotwork.ingest.model_work import ModelWork


class Owed:
    """The work a vault's chunks owe, as the graph counts it (``left``), done by passes of at
    most ``limit`` each; ``stall`` makes the passes do nothing from then on (a model down)."""

    def __init__(self, owed: int, stall: int | None = None) -> None:
        self.owed, self.stall, self.passes = owed, stall, 0
        self.neo4j_down = False

    async def one_pass(self, limit: int) -> int:
        self.passes += 1
        did = 0 if self.stall is not None and self.passes > self.stall else min(limit, self.owed)
        self.owed -= did
        return did

    async def left(self) -> int:
        if self.neo4j_down:
            raise GraphUnavailableError("Neo4j is not reachable")
        return self.owed


def infos(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]


async def _ran(work: ModelWork) -> None:
    for _ in range(500):
        if not work.running:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the passes never ended")


async def test_a_run_of_passes_is_logged_once_with_its_total(
    caplog: pytest.LogCaptureFixture,
) -> None:
    owed = Owed(131)
    limits: list[int] = []

    async def one_pass(limit: int) -> int:
        limits.append(limit)
        return await owed.one_pass(limit)

    work = ModelWork(one_pass, owed.left)
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await _ran(work)
    assert limits == [model_work.MODEL_PASS] * 4  # until a pass does nothing
    said = infos(caplog)
    assert len(said) == 1
    assert said[0].startswith("pending model work done: 131 embeddings and extractions in ")


async def test_a_long_run_says_how_far_it_is_of_how_much(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model_work, "PROGRESS_S", 0.0)  # every pass counts as long
    monkeypatch.setattr(model_work, "MODEL_PASS", 5)
    owed = Owed(10)
    work = ModelWork(owed.one_pass, owed.left)
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await _ran(work)
    said = infos(caplog)
    assert [s.split(",")[0] for s in said[:2]] == [
        "pending model work: 5 of 10 embeddings and extractions done",
        "pending model work: 10 of 10 embeddings and extractions done",
    ]
    assert said[2].startswith("pending model work done: 10 embeddings and extractions in ")
    assert len(said) == 3


async def test_a_run_the_model_cuts_off_says_it_stopped_and_how_much_is_left(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The passes end when one does nothing: with work left (the model down), that is no
    "done". The count, read as the run ends, says what is left."""
    owed = Owed(1216 + 258, stall=19)  # 19 passes of 64, then the model stops answering
    work = ModelWork(owed.one_pass, owed.left)
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await _ran(work)
    said = infos(caplog)
    assert len(said) == 1
    assert said[0].startswith(
        "pending model work stopped (258 left): 1216 of 1474 embeddings and extractions done in "
    )


async def test_a_run_neo4j_cuts_off_says_what_was_left_when_last_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Neo4j away ends the passes (each does nothing) and the count with them: what is left
    is the count of the run's first pass less what was done since, said as an estimate."""
    owed = Owed(300, stall=3)

    async def one_pass(limit: int) -> int:
        did = await owed.one_pass(limit)
        owed.neo4j_down = not did
        return did

    work = ModelWork(one_pass, owed.left)
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await _ran(work)
    said = infos(caplog)
    assert len(said) == 1
    assert said[0].startswith(
        "pending model work stopped (about 108 left): 192 of 300 embeddings and extractions "
        "done in "
    )


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

    counts = 0

    async def left() -> int:
        nonlocal counts
        counts += 1
        return 20 - 7

    work = ModelWork(one_pass, left)
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await asyncio.wait_for(began.wait(), 5)
        await asyncio.wait_for(work.stop(), 5)
    assert not work.running
    said = infos(caplog)
    assert len(said) == 1 and said[0].startswith(
        "pending model work stopped (about 13 left): 7 of 20 embeddings and extractions done"
    )
    assert counts == 1, "counted once its first pass had done something, not as it stopped"


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
