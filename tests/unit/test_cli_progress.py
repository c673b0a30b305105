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
        for done, at in enumerate(("a.md", "b.md", "c.md"), 1):
            progress(done, 3, f"writing notes: {at}")
        for done in (1, 2):  # the model's extraction is counted in chunks, not in notes
            progress(done, 2, "extracting facts from chunks")
    lines = [r.getMessage() for r in caplog.records if r.name == cli_app.__name__]
    assert lines == [
        "writing notes: b.md (2 of 3, 11 s)",
        "writing notes: c.md (3 of 3, 12 s)",  # a step's end is always said
        "extracting facts from chunks (1 of 2, 25 s)",
        "extracting facts from chunks (2 of 2, 26 s)",
    ]


def test_the_bar_keeps_the_step_and_the_end_of_a_long_path() -> None:
    assert cli_app.shown("writing notes: a.md") == "writing notes: a.md"
    cut = cli_app.shown("writing notes: Projects/2024/Archive/Quarterly review of Q3.md")
    assert cut == "writing notes: …uarterly review of Q3.md" and len(cut) == 40
    assert cli_app.shown("x" * 50) == "…" + "x" * 39
