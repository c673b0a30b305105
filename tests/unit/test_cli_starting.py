"""The line a command shows while it starts (cli/starting.py): on a terminal, the step under
way, each drawn as it begins and all cleared before the command's own output; off a terminal,
nothing, unless a step runs past ``SLOW_S``: then one log line names it."""

from __future__ import annotations

import io
import logging
import time

import pytest
from rich.console import Console

from knotwork.cli import starting
from knotwork.cli.starting import Starting

NEO4J = "connecting to Neo4j at bolt://127.0.0.1:7687"
MODELS = "loading the embedding model nomic-embed-text and the chat model llama3.1:8b"
SCHEMA = "applying the schema"


def _terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=120), out


def _piped() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=False, width=120), out


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == starting.__name__]


def test_on_a_terminal_each_step_is_drawn_as_it_begins_and_all_cleared_at_the_end() -> None:
    console, out = _terminal()
    with starting.starting(console) as start:
        for step in (NEO4J, MODELS, SCHEMA):  # each shorter than a redraw
            start.step(step)
            assert step in out.getvalue(), f"{step!r} never drawn"
        start.done()
        drawn = len(out.getvalue())
        start.step("after the start: ignored")
    assert "ignored" not in out.getvalue()
    assert len(out.getvalue()) == drawn  # nothing drawn after done
    assert out.getvalue().endswith("\x1b[2K")  # the line erased: the command's output next
    assert console._live_stack == []  # a progress bar may start: no display left running


def test_a_start_that_fails_clears_its_line_before_the_error_is_printed() -> None:
    console, _ = _terminal()
    with pytest.raises(RuntimeError), starting.starting(console) as start:
        start.step(NEO4J)
        assert console._live_stack
        raise RuntimeError("Neo4j is not reachable")
    assert console._live_stack == []


def test_off_a_terminal_a_quick_start_says_nothing(caplog: pytest.LogCaptureFixture) -> None:
    console, out = _piped()
    caplog.set_level(logging.INFO, logger=starting.__name__)
    with starting.starting(console) as start:
        for step in (NEO4J, MODELS, SCHEMA):
            start.step(step)
    time.sleep(0.1)
    assert out.getvalue() == "" and _lines(caplog) == []


def test_off_a_terminal_a_slow_step_is_logged_once(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model client built for longer than ``SLOW_S`` (torch, a cold disk): one line, not one
    a period; the quick steps before and after it, none; nothing on the console itself."""
    monkeypatch.setattr(starting, "SLOW_S", 0.2)
    console, out = _piped()
    caplog.set_level(logging.INFO, logger=starting.__name__)
    start = Starting(console)
    start.step(NEO4J)
    start.step(MODELS)
    time.sleep(0.7)  # over three times the limit
    start.step(SCHEMA)
    start.done()
    time.sleep(0.3)  # past the limit of the last step, which done() ended first
    assert _lines(caplog) == [f"still {MODELS} after 0 s"]
    assert out.getvalue() == ""
