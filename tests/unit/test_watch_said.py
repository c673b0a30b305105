"""The watcher's one line per pass (watch/said.py) names paths as they print: a character
that does not print (a C1 control, a line separator) is escaped, so no name forges a line."""

from __future__ import annotations

import logging

import pytest

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
