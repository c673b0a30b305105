"""What a person at a terminal sees in the seconds a command takes to start (Neo4j's first
answer, the model clients, the schema): a line naming the step under way, replaced by the
command's own progress; a pipe or a log file gets none of it, and stdout is the same either way.
Each command runs against the real Neo4j and the fake Ollama."""

from __future__ import annotations

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
