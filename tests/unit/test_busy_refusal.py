"""A REST write refused before its file changes says why, whoever held the lease."""

from __future__ import annotations

from knotwork.serving.refusals import busy
from knotwork.serving.writers import Way


def test_a_lease_that_changed_hands_is_said_so_not_blamed_on_a_writer_that_does_not_watch() -> None:
    said = str(busy("Ann.md", Way("busy", None)))
    assert "changed hands" in said and "retry" in said and "Ann.md" in said
    assert "does not watch" not in said


def test_a_holder_that_does_not_watch_is_named() -> None:
    holder = {"holder": "h1", "mode": "cli-ingest", "host": "box", "pid": 7}
    said = str(busy("Ann.md", Way("busy", holder)))
    assert "h1 (mode cli-ingest, host box, pid 7)" in said and "does not watch" in said
