"""The line a command shows while it starts (cli/starting.py): on a terminal, the step under
way, each drawn as it begins and all cleared before the command's own output; off a terminal,
nothing, unless a step runs past ``SLOW_S``: then one log line names it. Every command that
connects names the same steps, in the same order."""

from __future__ import annotations

import importlib
import io
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from knotwork.cli import app as cli
from knotwork.cli import starting
from knotwork.cli.starting import Starting, start_steps
from knotwork.settings import get_settings

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


# The modules whose commands open a core, each through its own name for ``with_core``.
COMMAND_MODULES = ("notes", "read", "service", "vault", "evaluate")


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """The settings the labels name, from the environment alone (no .env of a developer's),
    and a folder holding a vault and eval's two files."""
    monkeypatch.chdir(tmp_path)
    for name, value in {
        "NEO4J_URI": "bolt://127.0.0.1:7687",
        "NEO4J_PASSWORD": "unused",
        "EMBED_MODEL": "nomic-embed-text",
        "LLM_MODEL": "llama3.1:8b",
    }.items():
        monkeypatch.setenv(f"KNOTWORK_{name}", value)
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "A.md").write_text("# A\n", encoding="utf-8")
    passage = {"title": "A", "text": "A quokka."}
    (tmp_path / "corpus.jsonl").write_text(json.dumps(passage) + "\n", encoding="utf-8")
    question = {"id": "q1", "question": "quokka", "type": "comparison", "gold_titles": ["A"]}
    (tmp_path / "questions.jsonl").write_text(json.dumps(question) + "\n", encoding="utf-8")
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


EVAL = ["eval", "--corpus", "corpus.jsonl", "--questions", "questions.jsonl"]
STARTS = [
    (["ingest", "v"], [NEO4J, MODELS, SCHEMA]),
    (["calibrate"], [NEO4J, MODELS, SCHEMA]),
    (["retry"], [NEO4J, MODELS, SCHEMA]),
    (["retry", "--errors"], [NEO4J, MODELS, SCHEMA]),
    (["watch", "v"], [NEO4J, MODELS, SCHEMA]),
    (EVAL, [NEO4J, MODELS, SCHEMA]),
    (["verify", "v"], [NEO4J, SCHEMA]),
    (["init"], [NEO4J, SCHEMA]),
    (["reembed"], [NEO4J, MODELS]),  # on the graph's older model: no ensure_ready
    (["ask", "Who?"], [NEO4J, MODELS]),
    (["retrieve", "Who?"], [NEO4J, MODELS]),
    (["note", "A.md"], [NEO4J]),
    (["history", "A.md"], [NEO4J]),
    (["search", "A"], [NEO4J]),
    (["stats"], [NEO4J]),
    (["doctor"], []),  # its report says whether Neo4j answers: it never fails on it
]


@pytest.mark.parametrize(("command", "steps"), STARTS, ids=[" ".join(c[:2]) for c, _ in STARTS])
def test_each_command_names_each_step_of_its_start_in_the_one_order(
    settled: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], steps: list[str]
) -> None:
    """calibrate and verify named "connecting to Neo4j at …; applying the schema" as one
    step after the models, eval and init applied the schema in their work with no step named:
    each command's start is now the same steps, in ingest's order, from ``start_steps``."""
    named: list[list[str]] = []

    def with_core(
        work: Any, stopped_said: Any = None, stopped_err: bool = False, **how: Any
    ) -> Any:
        named.append([step.what for step in start_steps(get_settings(), **how)])  # stops where
        raise typer.Exit(0)  # the work begins

    for module in COMMAND_MODULES:
        monkeypatch.setattr(
            importlib.import_module(f"knotwork.cli.{module}"), "with_core", with_core
        )
    result = CliRunner().invoke(cli, command)
    assert result.exit_code == 0, result.output
    assert named == [steps]


@pytest.mark.parametrize(
    "command", [["calibrate"], ["verify", "v"], EVAL, ["init"], ["stats"]], ids=lambda c: c[0]
)
def test_neo4j_away_is_met_under_the_first_step_before_any_other(
    settled: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    """The real start with nothing listening at the URI: the command stops on its first step,
    named as Neo4j's (calibrate and eval built the model clients first, calibrate and verify
    named the schema with it, init and stats named no step)."""
    monkeypatch.setenv("KNOTWORK_NEO4J_URI", "bolt://127.0.0.1:9")
    monkeypatch.setenv("KNOTWORK_NEO4J_UNAVAILABLE_AFTER_S", "0.2")
    named: list[str] = []
    step = Starting.step
    monkeypatch.setattr(
        Starting, "step", lambda start, what: (named.append(what), step(start, what))
    )
    result = CliRunner().invoke(cli, command)
    assert result.exit_code == 1, result.output
    assert "127.0.0.1:9" in result.output
    assert named == ["connecting to Neo4j at bolt://127.0.0.1:9"]
