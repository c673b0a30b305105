"""Progress of a long sync where stderr is no terminal (compose's logs, a file): log lines at
an interval instead of a bar that draws nothing."""

from __future__ import annotations

import importlib
import logging

import pytest

cli_app = importlib.import_module("knotwork.cli.app")  # the module; the package exports `app`


def test_off_a_terminal_progress_is_logged_every_few_seconds(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    clock = iter(float(t) for t in (0, 3, 11, 12, 25, 26))
    monkeypatch.setattr(cli_app.time, "monotonic", lambda: next(clock))
    assert not cli_app.console().is_terminal  # pytest captures stderr
    caplog.set_level(logging.INFO, logger=cli_app.__name__)
    with cli_app.progress_bar() as progress:
        for done, at in enumerate(("a.md", "b.md", "c.md", "d.md", "e.md"), 1):
            progress(done, 5, at)
    lines = [r.getMessage() for r in caplog.records if r.name == cli_app.__name__]
    assert lines == ["synced 2 of 5 notes (11 s): b.md", "synced 4 of 5 notes (25 s): d.md",
                     "synced 5 of 5 notes (26 s): e.md"]  # fmt: skip
