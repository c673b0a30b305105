"""The watcher's one line per pass (watch/said.py) names paths as they print: a character
that does not print (a C1 control, a line separator) is escaped, so no name forges a line."""

from __future__ import annotations

import logging

import pytest

from knotwork.ingest.changes import NoteOutcome
from knotwork.watch.said import PassReport


def test_a_name_that_does_not_print_is_said_escaped(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="knotwork.watch.said")
    report = PassReport()
    report.add("written", "Café/Ok.md")
    report.add("written", "a\u20282026 INFO forged.md")
    report.add("deleted", "Ali\x85ce.md")
    report.say()
    [line] = [r.getMessage() for r in caplog.records]
    assert line == "written 2: Café/Ok.md, a\\u20282026 INFO forged.md; deleted Ali\\x85ce.md"
    assert report.done == {}


def test_a_move_found_by_its_text_is_said_with_the_path_it_left() -> None:
    """A rescan's or a batch's move found by content was said "renamed 4: a/rs-m11.md, …"
    beside "moved 6: a/m15.md → a/rs-m15.md" in the same pass."""
    report = PassReport()
    report.landed(NoteOutcome("a/new.md", "renamed", renamed_from="a/old.md"), "a/new.md")
    report.landed(NoteOutcome("b.md", "written"), "b.md")
    assert report.done == {"moved": ["a/old.md → a/new.md"], "written": ["b.md"]}
