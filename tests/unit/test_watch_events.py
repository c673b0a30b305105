"""The watcher's paths waiting out their debounce, without a file system or a database."""

from __future__ import annotations

from pathlib import Path

import pytest

from knotwork.watch import events
from knotwork.watch.events import PathEvents
from knotwork.watch.queue import WatchStatus


def test_a_path_that_keeps_changing_waits_at_most_max_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each event pushes a path's turn back by the debounce, but a note written every 200 ms
    (a transcript, a log) still gets its turn MAX_WAIT_S after its first change."""
    clock = [100.0]
    monkeypatch.setattr(events.time, "monotonic", lambda: clock[0])
    waiting = PathEvents(tmp_path, debounce=0.3, queue_max=100, status=WatchStatus())
    waiting._mark("log.md")
    assert waiting.pending["log.md"].due == pytest.approx(100.3)
    while clock[0] < 100 + events.MAX_WAIT_S + 2:
        clock[0] += 0.2
        waiting._mark("log.md")
    assert waiting.pending["log.md"].due == pytest.approx(100 + events.MAX_WAIT_S)
    waiting._mark("other.md")  # another path keeps its own debounce
    assert waiting.pending["other.md"].due == pytest.approx(clock[0] + 0.3)
