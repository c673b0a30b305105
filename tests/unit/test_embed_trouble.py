"""A vault's embedding trouble: refused vectors are over only when a pass over the pending
chunks saw none waiting after the last refusal; a pass that read them before a refusal proves
nothing of it."""

from __future__ import annotations

import logging
import time

import pytest

from knotwork.llm.embed_trouble import EmbedTrouble

NONE_LEFT = "has no chunk waiting for good vectors any more"


def _refused(trouble: EmbedTrouble) -> None:
    """A refusal as the model calls count and say it."""
    trouble.refusals += 1
    trouble.refused.failed("returned a zero vector", "1 chunk waits", "check the model")


def _ended(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]


def test_good_vectors_for_all_that_waited_end_it_at_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    trouble = EmbedTrouble()
    _refused(trouble)
    trouble.settled(trouble.refusals, embedded=True)
    [line] = _ended(caplog)
    assert line.startswith("the embedding model answers good vectors again after ")
    assert trouble.refused.since is None


def test_a_pass_that_read_before_a_refusal_ends_nothing(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    trouble = EmbedTrouble()
    _refused(trouble)
    read = trouble.refusals  # a pass reads the pending chunks…
    _refused(trouble)  # …a write is refused meanwhile
    trouble.settled(read, embedded=True)
    trouble.settled(read, embedded=False)
    trouble.settled(read, embedded=False)
    assert not _ended(caplog) and trouble.refused.since is not None


def test_none_waiting_ends_it_at_the_second_look(caplog: pytest.LogCaptureFixture) -> None:
    """A write refused just before the first look may not have stored its chunks yet."""
    caplog.set_level(logging.INFO)
    trouble = EmbedTrouble()
    trouble.settled(0, embedded=False)  # no trouble: nothing to end, nothing kept
    _refused(trouble)
    trouble.settled(trouble.refusals, embedded=False)
    assert not _ended(caplog)
    trouble.settled(trouble.refusals, embedded=False)
    [line] = _ended(caplog)
    assert line.startswith(f"the embedding model {NONE_LEFT} after ")
    _refused(trouble)  # a new trouble: said again, and looked at twice again
    trouble.settled(trouble.refusals, embedded=False)
    assert len(_ended(caplog)) == 1


def test_begun_names_a_trouble_that_began_since_and_stands() -> None:
    trouble = EmbedTrouble()
    before = time.monotonic()
    assert trouble.begun(before) is None
    trouble.down.failed("connection refused", "the chunks wait")
    assert trouble.begun(before) is trouble.down
    assert trouble.begun(time.monotonic() + 1) is None  # began before that
    trouble.down.ended()
    assert trouble.begun(before) is None
