"""What a person at a terminal sees while `ingest` and `ask` wait on slow models: the step that
runs, counted in its own unit, from the first second to the last (a bar that stood at 7 of 8
notes while one note's chunks were embedded, then nothing while the gate was calibrated; an
`ask` silent for the minute its model took), and the answer's words as the model writes them.
Each command runs in a pseudo-terminal against the real Neo4j and the fake Ollama, its models
slowed."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from knotwork.cli import app as cli
from knotwork.cli.printed import cite
from tests.fakes.ollama import FakeOllama, hash_embedding
from tests.integration.conftest import put
from tests.integration.terminal import at_terminal
from tests.integration.test_answer import model

SECTIONS = 60


def _slow_embedder(fake: FakeOllama, per_text_s: float) -> None:
    def embed(texts: list[str], dimension: int) -> list[list[float]]:
        time.sleep(per_text_s * len(texts))
        return [hash_embedding(text, dimension) for text in texts]

    fake.embed_script = embed


def _count(frame: str) -> tuple[int, int] | None:
    """A bar's count, "8/61"."""
    found = re.search(r"(\d+)/(\d+)", frame)
    return (int(found[1]), int(found[2])) if found else None


def _step(frame: str) -> str:
    """The step a bar names, before its note or its bar: "embedding chunks"."""
    found = re.search(r"([a-z][a-z' ]*[a-z])(?::| ━)", frame)
    return found[1] if found else ""


def test_ingest_at_a_terminal_shows_each_step_as_it_runs(
    env: None, tmp_path: Path, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bar is drawn ten times a second: a step shorter than that may never be seen, so
    what is asserted is what lasts (a slow embedder's slices, the calibration's probes)."""
    vault = tmp_path / "v"
    put(vault, "Small.md", "# Small\n\nA short note.\n")
    put(
        vault, "Big.md", "".join(f"## Part {i}\n\nPart {i} of a note.\n\n" for i in range(SECTIONS))
    )
    monkeypatch.setenv("KNOTWORK_EXTRACT", "false")
    monkeypatch.setenv("KNOTWORK_EMBED_BATCH_SIZE", "2")  # slices of 8 texts
    _slow_embedder(fake_ollama, 0.05)  # 0.4 s a slice
    screen = at_terminal("ingest", str(vault), cwd=tmp_path)
    assert screen.code == 0, (screen.stdout, screen.frames()[-5:])
    frames = screen.frames()
    # One note of 60 sections: its chunks are counted as they are embedded, not the note.
    big = [_count(f) for f in frames if "embedding chunks: Big.md" in f]
    assert any(count and 0 < count[0] < SECTIONS + 1 == count[1] for count in big), frames
    steps = list(dict.fromkeys(_step(f) for f in frames))
    assert steps.index("embedding chunks") < steps.index("calibrating the relevance gate")
    # The first sync calibrates the gate: its probes are counted, no blank screen meanwhile.
    probes = [_count(f) for f in frames if "calibrating the relevance gate" in f]
    assert any(count and count[1] == 16 for count in probes), frames
    assert "relevance floor" in screen.stdout and "notes 2: written 2" in screen.stdout


@pytest.fixture
def ingested(env: None, tmp_path: Path) -> Path:
    vault = tmp_path / "v"
    put(vault, "People/Alice.md", "# Alice\nAlice works with [[Bob]] on the knowledge graph.\n")
    put(vault, "People/Bob.md", "# Bob\nBob maintains the Neo4j cluster.\n")
    result = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert result.exit_code == 0, result.output
    return vault


ANSWER = "Alice works with Bob on the knowledge graph [People/Alice.md#Alice]."


def _slow_chat(fake: FakeOllama, seconds: float) -> None:
    def chat(body: dict[str, Any]) -> str:
        time.sleep(seconds)
        if body.get("format"):  # the question's keywords
            return json.dumps({"keywords": ["Alice"]})
        return ANSWER

    fake.chat_script = chat


def test_ask_at_a_terminal_names_each_wait_then_streams_the_answer(
    ingested: Path, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    _slow_chat(fake_ollama, 1.0)
    fake_ollama.stream_gap_s = 0.4  # five pieces of the answer, as the model writes them
    screen = at_terminal("ask", "Who does Alice work with?", cwd=tmp_path)
    assert screen.code == 0, (screen.stdout, screen.frames())
    frames = " | ".join(screen.frames())
    keywords = frames.index("searching the notes; the chat model picks keywords")
    assert keywords < frames.index("waiting for the chat model's answer"), frames
    # The words as they come: the first on the screen well before the last.
    assert screen.first_out(ANSWER[:16]) + 1.0 < screen.first_out(ANSWER)
    assert screen.stdout == f"{ANSWER}\n\nsources:\n  - People/Alice.md#Alice:1-2\n"


def test_ask_json_at_a_terminal_is_one_document_with_the_wait_named_on_stderr(
    ingested: Path, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    _slow_chat(fake_ollama, 0.5)
    fake_ollama.stream_gap_s = 0.1
    screen = at_terminal(
        "ask", "Who does Alice work with?", "--mode", "fast", "--json", cwd=tmp_path
    )
    assert screen.code == 0, (screen.stdout, screen.frames())
    body = json.loads(screen.stdout)
    assert body["status"] == "ok" and body["answer"] == ANSWER
    frames = " | ".join(screen.frames())
    assert "searching the notes" in frames and "picks keywords" not in frames  # fast: none
    assert "the chat model is writing the answer" in frames or "waiting for the chat" in frames


LONG_NOTE = "Scratch/long.md"
LONG_HEADING = "Quokka burrows " * 25 + "end"  # 378 characters: cut in the answer's marker


def test_ask_at_a_terminal_prints_an_answer_citing_a_long_heading_once(
    env: None, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """The tokens were echoed with the model's marker (the whole heading), then the final body
    (its marker cut, as the API's) printed in full after them: the answer twice. The stream
    must be the final answer, printed once, as a pipe gets it whole."""
    vault = tmp_path / "v"
    put(vault, LONG_NOTE, f"# {LONG_HEADING}\n\nQuokkas dig burrows in the outback.\n")
    assert CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"]).exit_code == 0
    fake_ollama.chat_script = model(lambda _prompt: "Quokkas dig burrows [S1].")
    question = ["ask", "Where do quokkas dig burrows?", "--mode", "fast"]
    piped = CliRunner().invoke(cli, question)
    assert piped.exit_code == 0, piped.output
    body = json.loads(CliRunner().invoke(cli, [*question, "--json"]).output)
    answer = body["answer"]
    assert body["status"] == "ok" and "sha256:" in answer and LONG_HEADING not in answer, body
    screen = at_terminal(*question, cwd=tmp_path)
    assert screen.code == 0, (screen.stdout, screen.frames())
    assert screen.stdout.count(answer) == 1 and LONG_HEADING not in screen.stdout, screen.stdout
    assert (
        screen.stdout == piped.output == f"{answer}\n\nsources:\n  - {cite(body['citations'][0])}\n"
    )
