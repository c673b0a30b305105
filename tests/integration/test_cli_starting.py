"""What a person at a terminal sees in the seconds a command takes to start (Neo4j's first
answer, the model clients, the schema): a line naming the step under way, replaced by the
command's own progress; a pipe or a log file gets none of it, and stdout is the same either way.
Each command runs against the real Neo4j and the fake Ollama."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from knotwork.cli import app as cli
from knotwork.settings import get_settings
from tests.integration.conftest import put
from tests.integration.terminal import at_terminal

MODELS = "loading the embedding model nomic-embed-text and the chat model llama3.1:8b"


def _first(frames: list[str], text: str) -> int:
    """The first frame that shows ``text``."""
    found = next((i for i, frame in enumerate(frames) if text in frame), None)
    assert found is not None, f"{text!r} never drawn: {frames[:20]}"
    return found


def test_ingest_at_a_terminal_names_each_step_of_its_start_then_shows_its_progress(
    env: None, tmp_path: Path
) -> None:
    vault = tmp_path / "v"
    put(vault, "A.md", "# A\n\nA short note about [[B]].\n")
    put(vault, "B.md", "# B\n\nAnother one.\n")
    neo4j = f"connecting to Neo4j at {get_settings().neo4j_uri}"
    screen = at_terminal("ingest", str(vault), "--no-extract", cwd=tmp_path)
    assert screen.code == 0, (screen.stdout, screen.frames()[-5:])
    frames = screen.frames()
    steps = [_first(frames, text) for text in (neo4j, MODELS, "applying the schema")]
    assert steps == sorted(steps), frames  # in the order they run
    assert steps[-1] < _first(frames, "reading the vault"), frames  # then the sync's bar
    assert "notes 2: written 2" in screen.stdout
    assert "connecting" not in screen.stdout and "applying" not in screen.stdout

    # Off a terminal: the same stdout, and no line of the start on stderr.
    piped = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert piped.exit_code == 0, piped.output
    assert "notes 2: written 0, unchanged 2" in piped.stdout
    assert not any(s in piped.stderr for s in ("connecting", "loading the", "applying"))


NEO4J_STEP = "connecting to Neo4j at "
SCHEMA = "applying the schema"
PASSAGES = [{"title": "Quokka", "text": "The quokka sings."}, {"title": "Fjord", "text": "Cold."}]
QUESTIONS = [{"id": "q1", "question": "quokka", "type": "comparison", "gold_titles": ["Quokka"]}]


def test_every_command_that_connects_names_the_same_steps_in_the_same_order(
    env: None, tmp_path: Path
) -> None:
    """calibrate and verify showed "connecting to Neo4j at …; applying the schema" as one
    step, and eval and init applied the schema in their work, the start's line gone: each now
    names every step it runs, in ingest's order, before its own output or progress."""
    vault = tmp_path / "v"
    put(vault, "A.md", "# A\n\nA short note about [[B]].\n")
    corpus, questions = tmp_path / "corpus.jsonl", tmp_path / "questions.jsonl"
    corpus.write_text("".join(json.dumps(p) + "\n" for p in PASSAGES), encoding="utf-8")
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    neo4j = f"{NEO4J_STEP}{get_settings().neo4j_uri}"
    assert CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"]).exit_code == 0
    evaluate = ["eval", "--corpus", str(corpus), "--questions", str(questions),
                "--configs", "fulltext", "--cache", str(tmp_path / "c")]  # fmt: skip
    for command, steps, then in (
        (["calibrate"], (neo4j, MODELS, SCHEMA), "calibrating the relevance gate"),
        (["verify", str(vault)], (neo4j, SCHEMA), "reading the vault"),
        (evaluate, (neo4j, MODELS, SCHEMA), "reading the vault"),
        (["init"], (neo4j, SCHEMA), None),
        (["stats"], (neo4j,), None),
    ):
        screen = at_terminal(*command, cwd=tmp_path)
        frames = screen.frames()
        assert screen.code == 0, (command, screen.stdout, frames[-5:])
        shown = [frame for frame in frames if NEO4J_STEP in frame or "schema" in frame]
        assert not any(";" in frame for frame in shown), (command, shown)  # one step a line
        drawn = [_first(frames, step) for step in steps]
        assert drawn == sorted(drawn), (command, frames)
        assert not any(MODELS in frame for frame in frames) or MODELS in steps, command
        if then is not None:  # the command's progress comes after the last step
            assert drawn[-1] < _first(frames, then), (command, frames)
        assert "connecting" not in screen.stdout and "applying" not in screen.stdout
