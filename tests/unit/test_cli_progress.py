"""Progress of a long sync where stderr is no terminal (compose's logs, a file): log lines at
an interval instead of a bar that draws nothing."""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.conftest import make_settings

cli_app = importlib.import_module("knotwork.cli.app")  # the module; the package exports `app`


def test_off_a_terminal_progress_is_logged_every_few_seconds(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    clock = iter(float(t) for t in (0, 3, 11, 12, 25, 26))
    # The CLI's clock only (cli_app.time is the module every thread's event loop reads).
    monkeypatch.setattr(cli_app, "time", SimpleNamespace(monotonic=lambda: next(clock)))
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


def test_reembed_off_a_terminal_prints_lines_not_carriage_returns(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """``reembed 2>&1 | cat`` printed "re-embedded 32/76 chunksre-embedded 64/76 chunks…" on
    one line: a "\\r" per update whatever stdout was. Its progress is now ingest's."""
    service = importlib.import_module("knotwork.cli.service")

    async def reembed(store: Any, settings: Any, embed: Any, progress: Any, **_: Any) -> Any:
        for done in (32, 64, 76):
            progress(done, 76)
        return service.schema.Reembedded(76)

    @asynccontextmanager
    async def writing(*_: Any) -> AsyncIterator[Any]:
        yield SimpleNamespace(ttl_s=30, holder="h")  # the vault's lease, then the database's

    class Linker:
        def __init__(self, core: Any) -> None: ...

        async def link_entities(self) -> int:
            return 0

    core = SimpleNamespace(settings=make_settings(), load_embedder=None, store=None)
    monkeypatch.setattr(service.schema, "reembed", reembed)
    monkeypatch.setattr(service, "writing", writing)
    monkeypatch.setattr(service, "holding", writing)
    monkeypatch.setattr(service, "Ingestor", Linker)
    monkeypatch.setattr(
        service, "with_core", lambda work, models, first=None, **_: asyncio.run(work(core))
    )
    clock = iter(float(t) for t in (0, 11, 12, 25))
    # The CLI's clock only: the event loop reads time.monotonic too.
    monkeypatch.setattr(cli_app, "time", SimpleNamespace(monotonic=lambda: next(clock)))
    caplog.set_level(logging.INFO, logger=cli_app.__name__)
    result = CliRunner().invoke(cli_app.app, ["reembed"])
    assert result.exit_code == 0, result.output
    assert "\r" not in result.output
    assert result.output.splitlines()[0].startswith("re-embedded 76 chunks; the manifest now")
    lines = [r.getMessage() for r in caplog.records if r.name == cli_app.__name__]
    assert lines == ["re-embedding chunks (32 of 76, 11 s)", "re-embedding chunks (76 of 76, 25 s)"]


def test_off_a_terminal_the_end_of_a_step_no_line_said_is_not_said(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A sync tells each unit of notes embedded, start to end: once past the first seconds,
    a line for every unit's end would be a flood. The end of a step a line said is said."""
    clock = iter(float(t) for t in range(0, 100))
    monkeypatch.setattr(cli_app, "time", SimpleNamespace(monotonic=lambda: next(clock)))
    caplog.set_level(logging.INFO, logger=cli_app.__name__)
    with cli_app.progress_bar() as progress:
        for unit in range(8):  # eight units of 20 chunks, one second a call: 24 s in all
            for done in (0, 10, 20):
                progress(done, 20, f"embedding chunks: n{unit}.md")
    lines = [r.getMessage() for r in caplog.records if r.name == cli_app.__name__]
    assert lines == [
        "embedding chunks: n3.md (0 of 20, 10 s)",
        "embedding chunks: n3.md (20 of 20, 12 s)",  # its run was said: its end is
        "embedding chunks: n7.md (0 of 20, 22 s)",  # ten seconds on: the next line
        "embedding chunks: n7.md (20 of 20, 24 s)",
    ]  # not the ends of n4, n5 and n6, which no line named


def test_a_status_off_a_terminal_says_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    """``ask``'s spinner is for a person at a terminal: a pipe or a log gets no line of it."""
    from knotwork.cli.answering import status

    assert not cli_app.console().is_terminal
    with status("searching the notes") as step:
        step("waiting for the chat model's answer")
        step(None)
        step("after the spinner went: ignored")
    assert capsys.readouterr() == ("", "")
