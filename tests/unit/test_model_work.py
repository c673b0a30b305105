"""ModelWork: passes run one at a time, a pass asked for while one runs follows it, and a run
of passes is logged once, not pass by pass: how far it is of how much, and at its end done, or
stopped with what it left. How far it is moves with each chunk a pass tells its progress of:
a bar on a terminal, a line every few seconds elsewhere."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace

import pytest

from knotwork.errors import GraphUnavailableError, ManifestMismatchError
from knotwork.ingest import model_work
from knotwork.ingest.changes import Progress
from knotwork.ingest.model_work import ModelWork
from knotwork.ingest.owed import Owed as Steps


class Owed:
    """The extractions a vault's chunks owe (every embedding done), as the graph counts them
    (``left``), done by passes of at most ``limit`` each; ``stall`` makes the passes do nothing
    from then on (a model down)."""

    def __init__(self, owed: int, stall: int | None = None) -> None:
        self.owed, self.stall, self.passes = owed, stall, 0
        self.neo4j_down = False

    async def one_pass(self, limit: int, progress: Progress) -> int:
        self.passes += 1
        did = 0 if self.stall is not None and self.passes > self.stall else min(limit, self.owed)
        self.owed -= did
        return did

    async def left(self) -> Steps:
        if self.neo4j_down:
            raise GraphUnavailableError("Neo4j is not reachable")
        return Steps(extractions=self.owed)


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

    async def one_pass(limit: int, progress: Progress) -> int:
        limits.append(limit)
        return await owed.one_pass(limit, progress)

    work = ModelWork(one_pass, owed.left)
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await _ran(work)
    assert limits == [model_work.MODEL_PASS] * 4  # until a pass does nothing
    said = infos(caplog)
    assert len(said) == 1
    assert said[0].startswith("pending model work done: 131 extractions in ")


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
        "pending model work: 5 of 10 extractions done",
        "pending model work: 10 of 10 extractions done",
    ]
    assert said[2].startswith("pending model work done: 10 extractions in ")
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
        "pending model work stopped (258 left): 1216 of 1474 extractions done in "
    )


async def test_a_run_neo4j_cuts_off_says_what_was_left_when_last_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Neo4j away ends the passes (each does nothing) and the count with them: what is left
    is the count of the run's first pass less what was done since, said as an estimate."""
    owed = Owed(300, stall=3)

    async def one_pass(limit: int, progress: Progress) -> int:
        did = await owed.one_pass(limit, progress)
        owed.neo4j_down = not did
        return did

    work = ModelWork(one_pass, owed.left)
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await _ran(work)
    said = infos(caplog)
    assert len(said) == 1
    assert said[0].startswith(
        "pending model work stopped (about 108 left): 192 of 300 extractions done in "
    )


async def test_a_pass_asked_for_while_one_runs_follows_it() -> None:
    gate = asyncio.Event()
    calls = 0

    async def one_pass(limit: int, progress: Progress) -> int:
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

    async def one_pass(limit: int, progress: Progress) -> int:
        try:
            return next(answers)
        except StopIteration:
            began.set()
            await asyncio.Event().wait()  # a model that never answers
            return 0

    counts = 0

    async def left() -> Steps:
        nonlocal counts
        counts += 1
        return Steps(extractions=20 - 7)

    work = ModelWork(one_pass, left)
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await asyncio.wait_for(began.wait(), 5)
        await asyncio.wait_for(work.stop(), 5)
    assert not work.running
    said = infos(caplog)
    assert len(said) == 1 and said[0].startswith(
        "pending model work stopped (about 13 left): 7 of 20 extractions done"
    )
    assert counts == 2, "counted as the run began and after its first pass, not as it stopped"


async def test_a_graph_reembedded_under_the_work_ends_it_for_its_owner_to_stop(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Not logged as a bug and asked again every period: kept for the watcher, which stops."""
    passes: list[int] = []

    async def one_pass(limit: int, progress: Progress) -> int:
        passes.append(limit)
        raise ManifestMismatchError("all-minilm", 384, "nomic-embed-text", 768, changed=True)

    work = ModelWork(one_pass)
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await _ran(work)
    assert len(passes) == 1 and isinstance(work.refused, ManifestMismatchError)
    assert "Restart it" in str(work.refused)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


class Chunks:
    """Passes that tell their progress as ``retry_pending`` does, a clock that each chunk
    moves on (a slow model), and the passes' chunks: ``sizes`` per pass, then none."""

    def __init__(self, sizes: list[int], left: int, per_chunk_s: float = 0.0) -> None:
        self.sizes, self.owed, self.per_chunk_s, self.now = sizes, left, per_chunk_s, 0.0

    def monotonic(self) -> float:
        return self.now

    async def one_pass(self, limit: int, progress: Progress) -> int:
        if not self.sizes:
            return 0  # the model stops answering: the rest stays pending
        size = self.sizes.pop(0)
        embed = size // 2  # the first half embedded as one slice, then each extracted
        self.now += self.per_chunk_s * embed
        progress(embed, size, f"embedded {embed}/{embed} chunks")
        for i in range(embed + 1, size + 1):
            self.now += self.per_chunk_s
            progress(i, size, f"extracting facts: chunk {i - embed}/{size - embed}")
        self.owed -= size
        return size

    async def left(self) -> Steps:  # half of what is left embeddings, half extractions
        return Steps(self.owed // 2, self.owed - self.owed // 2)


async def test_off_a_terminal_a_slow_pass_says_how_far_it_is_chunk_by_chunk(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model taking 4 s a chunk: a line every 10 s or so from the first pass on, counted
    of all the run owes, not one once the pass of 64 chunks is over (minutes, or an hour)."""
    chunks = Chunks([6], left=20, per_chunk_s=4.0)
    # The model work's clock only: the event loop reads time.monotonic too.
    monkeypatch.setattr(model_work, "time", SimpleNamespace(monotonic=chunks.monotonic))
    work = ModelWork(chunks.one_pass, chunks.left)
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await _ran(work)
    assert infos(caplog) == [
        "pending model work: 3 of 20 embeddings and extractions done, 12 s",  # a slice of 3
        "pending model work: 6 of 20 embeddings and extractions done, 24 s",
        "pending model work stopped (14 left): 6 of 20 embeddings and extractions done in 24 s",
    ]


async def test_on_a_terminal_a_bar_moves_chunk_by_chunk_across_the_passes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The bar (the CLI's, on a terminal) counts the run, not each pass: the second pass goes
    on from where the first ended, of the total counted as the run began; it names the step
    under way, and goes before the run's end is said. No progress line beside it."""
    chunks = Chunks([4, 2], left=10)
    moves: list[tuple[int, int, str]] = []
    shown: list[str] = []

    @contextmanager
    def bar() -> Iterator[Progress]:
        shown.append("shown")
        yield lambda done, total, what: moves.append((done, total, what))
        shown.append(f"gone, {len(infos(caplog))} lines said")

    work = ModelWork(chunks.one_pass, chunks.left)
    work.shown = bar
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await _ran(work)
    embedding, extracting = (
        "pending model work: embedding chunks",
        "pending model work: extracting facts",
    )
    assert moves == [
        (2, 10, embedding),
        (3, 10, extracting),
        (4, 10, extracting),
        (4, 10, extracting),  # the pass over: counted again
        (5, 10, embedding),
        (6, 10, extracting),
        (6, 10, extracting),
    ]
    assert shown == ["shown", "gone, 0 lines said"]  # opened once, closed before the end
    said = infos(caplog)
    assert len(said) == 1 and said[0].startswith("pending model work stopped (4 left): 6 of 10")


async def test_a_stop_mid_pass_counts_what_the_pass_had_done(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Ctrl-C an hour into a pass of 64 chunks: its chunks extracted so far are in the graph,
    and the run's last line counts them, not nothing."""
    began = asyncio.Event()

    async def one_pass(limit: int, progress: Progress) -> int:
        for i in (1, 2):
            progress(i, 5, f"extracting facts: chunk {i}/5")
        began.set()
        await asyncio.Event().wait()  # the third chunk's answer never comes
        return 5

    async def left() -> Steps:
        return Steps(extractions=5)

    work = ModelWork(one_pass, left)
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await asyncio.wait_for(began.wait(), 5)
        await asyncio.wait_for(work.stop(), 5)
    said = infos(caplog)
    assert len(said) == 1 and said[0].startswith(
        "pending model work stopped (about 3 left): 2 of 5 extractions done in "
    ), said


async def test_progress_never_goes_back_when_a_pass_did_less_than_it_tried(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A pass tries 8 and does 5 (3 texts refused stay pending, 2 chunks written meanwhile):
    the bar counts what was tried, going on from 8 of all the run now owes, never 5 of 10;
    the run's last line counts what was done."""
    owed = 8
    passes = iter([(8, 5, 5), (5, 2, 3), (0, 0, 3)])  # tried, did, left after

    async def one_pass(limit: int, progress: Progress) -> int:
        nonlocal owed
        tried, did, owed = next(passes)
        for i in range(1, tried + 1):
            progress(i, tried, f"extracting facts: chunk {i}/{tried}")
        return did

    async def left() -> Steps:
        return Steps(extractions=owed)

    moves: list[tuple[int, int]] = []

    @contextmanager
    def bar() -> Iterator[Progress]:
        yield lambda done, total, what: moves.append((done, total))

    work = ModelWork(one_pass, left)
    work.shown = bar
    with caplog.at_level(logging.INFO, logger=model_work.__name__):
        work.wanted()
        await _ran(work)
    shown = [done for done, _ in moves]
    assert shown == sorted(shown) and shown[-1] == 13, moves
    assert all(done <= total for done, total in moves), moves
    assert moves[7:9] == [(8, 8), (8, 13)]  # the pass over: of what was tried and is left
    said = infos(caplog)
    assert len(said) == 1 and said[0].startswith(
        "pending model work stopped (3 left): 7 of 10 extractions done in "
    ), said
