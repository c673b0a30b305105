"""``pending_work`` (ingest/model_work.py), the real one over a fake ingestor: what the passes
meet is said once while it stands, not once a pass — the chat model down (each period's pass
postpones the chunks again), a pass that cannot finish — with a line when the model answers
again; an extraction that failed for good is said each time."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import pytest

from knotwork.errors import GraphQueryError
from knotwork.ingest.model_work import Standing, pending_work
from knotwork.ingest.waiting import Waiting

POSTPONED = "New.md: extraction postponed: model call failed: ResponseError: overloaded (503)"


class Ingestor:
    """``retry_pending`` answering what the test sets: warnings, chunks done, or a failure;
    its model calls count ``waits`` as what waits for extraction (read from the graph in
    tests/integration/test_model_trouble_said.py)."""

    def __init__(self) -> None:
        self.models = SimpleNamespace(down=False, waiting_for=self._waiting_for)
        self.waits = Waiting(5, 7, ["A.md", "B.md", "New.md"])
        self.read = 0  # times what waits was read
        self.warnings: list[str] = []
        self.extracted = 0
        self.failure: Exception | None = None

    async def retry_pending(
        self, limit: int, *, ask_again: bool, warnings: list[str], progress: Any
    ) -> tuple[int, int]:
        warnings += self.warnings
        if self.failure is not None:
            raise self.failure
        return 0, self.extracted

    async def _waiting_for(self, step: str) -> Waiting:
        assert step == "extraction"
        self.read += 1
        return self.waits


async def _passes(ingestor: Ingestor, said: Standing, n: int) -> None:
    fake: Any = ingestor
    for _ in range(n):
        await pending_work(fake, 4, said=said)


def _said(caplog: pytest.LogCaptureFixture, level: int = logging.WARNING) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == level]


async def test_a_chat_model_down_is_said_once_and_its_return_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ingestor, said = Ingestor(), Standing()
    ingestor.warnings = [POSTPONED]
    with caplog.at_level(logging.INFO):
        await _passes(ingestor, said, 3)  # three periods meet the model down
        assert _said(caplog) == [
            "the chat model unavailable (model call failed: ResponseError: overloaded (503)); "
            "waiting for extraction: 7 chunks of 5 notes (A.md, B.md, New.md and 2 more), "
            "tried again until it is back"
        ]
        assert ingestor.read == 1  # as the outage began, not once a pass
        ingestor.warnings, ingestor.extracted = [], 2
        await _passes(ingestor, said, 2)
    back = [s for s in _said(caplog, logging.INFO) if "reachable again" in s]
    assert len(back) == 1 and back[0].endswith(": the pending extractions resume"), back
    assert len(_said(caplog)) == 1


async def test_a_pass_that_cannot_finish_is_said_once_while_its_error_stands(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ingestor, said = Ingestor(), Standing()
    ingestor.failure = GraphQueryError("Neo4j refused the chunks' query")
    with caplog.at_level(logging.INFO):
        await _passes(ingestor, said, 3)
        ingestor.failure = None
        await _passes(ingestor, said, 1)  # it passed: the same error again is said again
        ingestor.failure = GraphQueryError("Neo4j refused the chunks' query")
        await _passes(ingestor, said, 2)
    assert (
        _said(caplog)
        == ["pending model work not finished yet: Neo4j refused the chunks' query"] * 2
    )


async def test_an_extraction_failed_for_good_is_said_each_time(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Its chunk is recorded as an error and not tried again: each such line is news."""
    ingestor, said = Ingestor(), Standing()
    ingestor.warnings, ingestor.extracted = ["A.md: extraction failed for a chunk: bad JSON"], 1
    with caplog.at_level(logging.INFO):
        await _passes(ingestor, said, 2)
    assert _said(caplog) == ["A.md: extraction failed for a chunk: bad JSON"] * 2
    assert not [s for s in _said(caplog, logging.INFO) if "reachable again" in s]
