"""Fixtures shared by unit and integration tests: the fake model servers and test settings."""

from __future__ import annotations

import asyncio
import faulthandler
import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from knotwork.retrieve import Hit
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.fakes.openai_like import FakeOpenAILike

REPO = Path(__file__).resolve().parents[1]

# A run started in the background of a script (`nohup scripts/test &`) inherits SIGINT ignored,
# and so would every command a test starts: those that test Ctrl-C would wait for a stop that
# never comes. A terminal's Ctrl-C is what they stand for.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _dump_tasks(signum: int, frame: object) -> None:
    """`kill -USR1 <pytest>`: every thread's stack and every task of the running loop, written
    to knotwork-tasks-<pid>.txt in the temporary folder (pytest holds stderr), to see what a
    run that stopped moving waits for."""
    with open(Path(tempfile.gettempdir()) / f"knotwork-tasks-{os.getpid()}.txt", "w") as out:
        faulthandler.dump_traceback(out, all_threads=True)
        try:
            tasks = asyncio.all_tasks()
        except RuntimeError:  # no loop running in this thread
            return
        for task in tasks:
            task.print_stack(file=out)


signal.signal(signal.SIGUSR1, _dump_tasks)


def hit(path: str, heading: str, text: str = "text", line: int = 1) -> Hit:
    """A retrieved chunk of ``path`` under ``heading``, for tests of prompts and citations."""
    return Hit(
        id=f"{path}#{heading}",
        path=path,
        title=path,
        heading=heading,
        line_start=line,
        line_end=line + 2,
        text=text,
        score=0.5,
    )


@pytest.fixture(scope="session")
def _fake_ollama_server() -> Iterator[FakeOllama]:
    fake = FakeOllama().start()
    yield fake
    fake.stop()


@pytest.fixture
def fake_ollama(_fake_ollama_server: FakeOllama) -> Iterator[FakeOllama]:
    """The loopback Ollama stand-in, with its models, script and call log reset for each test."""
    _fake_ollama_server.reset()
    yield _fake_ollama_server
    _fake_ollama_server.reset()


@pytest.fixture(scope="session")
def _fake_openai_server() -> Iterator[FakeOpenAILike]:
    fake = FakeOpenAILike().start()
    yield fake
    fake.stop()


@pytest.fixture
def fake_openai(_fake_openai_server: FakeOpenAILike) -> Iterator[FakeOpenAILike]:
    """The loopback OpenAI-compatible server (llama-server, vLLM, LM Studio), reset per test."""
    _fake_openai_server.reset()
    yield _fake_openai_server
    _fake_openai_server.reset()


def make_settings(**overrides: Any) -> Settings:
    """Settings for tests: no .env file is read, so a developer's own config cannot leak in."""
    return Settings(_env_file=None, **overrides)  # type: ignore[call-arg]
