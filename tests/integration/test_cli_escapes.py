"""A note's control characters never reach the terminal raw: its text, title, alias, path and
links, and a model's answer echoing them, are printed with each control character escaped
(``\\u001b``), by every command that shows them to a person, streamed or not; ``--json`` stays
the same document, its strings escaped by JSON."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from knotwork.cli import app as cli
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import put
from tests.integration.terminal import at_terminal
from tests.integration.test_answer import model

# OSC 0 (the window's title, up to BEL), clear screen, red, CSI as one C1 byte, a right-to-left
# override, an isolate; the answer adds a NUL and OSC 52 (the clipboard).
BODY = (
    "Quokkas dig burrows \x1b]0;PWNED\x07 in the \x1b[2J outback \x1b[31mred\x9b1m "
    "\u202eevil\u2066 [bold red]loud[/] [link=https://x.example]click[/link]\n"
)
NOTE = "Scratch/quokka [/x] \u202erevo.md"  # a path: rich markup in the progress bar, an override
FRONTMATTER = '---\ntitle: "Quokka \\e]0;TITLE\\a facts"\naliases: ["Q\\e[2Jk"]\n---\n'
TEXT = f"{FRONTMATTER}# Quokka \x1b]0;HEAD\x07 lair\n\n{BODY}\nSee [[Wombat\x07\x9b2J]].\n"
ANSWER = "Quokkas dig burrows \x1b]52;c;cHduZWQ=\x07 \x00 \u202eevil\x1b[2J [S1]."
RAW = ("\x1b", "\x07", "\x00", "\x9b", "\u202e", "\u2066")


def raw_in(text: str) -> list[str]:
    return [c for c in RAW if c in text]


def run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == code, (args, result.output, result.exception)
    return result.output


def test_every_command_prints_a_notes_control_characters_escaped(
    env: None, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    vault = tmp_path / "v"
    put(vault, NOTE, TEXT)
    fake_ollama.chat_script = model(lambda _prompt: ANSWER)
    ingested = run("ingest", str(vault), "--no-extract")
    assert "[[Wombat\\u0007\\u009b2J]]" in ingested and not raw_in(ingested), ingested
    question = ("ask", "Where do quokkas dig burrows?", "--mode", "fast")
    outputs = {
        "ask": run(*question),
        "retrieve": run("retrieve", "Where do quokkas dig burrows?"),
        "note": run("note", NOTE),
        "history": run("history", NOTE),
        "search": run("search", "quokka"),
    }
    for command, out in outputs.items():
        assert not raw_in(out), (command, out)
    assert "burrows \\u001b]52;c;cHduZWQ=\\u0007 \\u0000 \\u202eevil\\u001b[2J" in outputs["ask"]
    # The heading as its anchor says it: "]" is no character a link to a heading holds.
    assert "Quokka \\u001b 0;HEAD\\u0007 lair:" in outputs["retrieve"], outputs["retrieve"]
    assert "Quokka \\u001b]0;TITLE\\u0007 facts" in outputs["search"]
    assert "Q\\u001b[2Jk" in outputs["note"] and "wombat\\u0007\\u009b2j" in outputs["history"]
    assert "quokka [/x] \\u202erevo.md" in outputs["search"]  # rich markup as written
    # An answer citing none of the notes is followed by the passages' snippets: the note's text.
    fake_ollama.chat_script = model(lambda _prompt: "Quokkas dig burrows \x1b[2J.")
    uncited = run(*question, code=5)
    assert not raw_in(uncited) and "\\u001b]0;PWNED\\u0007" in uncited, uncited
    fake_ollama.chat_script = model(lambda _prompt: ANSWER)
    # --json: the same strings as JSON reads them, no control character raw on the terminal.
    printed = run(*question, "--json")
    assert not raw_in(printed) and "\\u202e" in printed, printed
    body = json.loads(printed)
    answer = body["answer"]
    assert answer.startswith("Quokkas dig burrows \x1b]52;c;") and "\u202e" in answer, answer
    note = json.loads(run("note", NOTE, "--json"))
    assert note["note"]["path"] == NOTE, note


def test_at_a_terminal_the_streamed_answer_and_the_bar_show_control_characters_escaped(
    env: None, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    """The streamed answer is written as the model's pieces come; the progress bar names the
    note's path, which rich read as markup ("[/x]" stopped the sync with a MarkupError)."""
    vault = tmp_path / "v"
    put(vault, NOTE, TEXT)
    ingest = at_terminal("ingest", str(vault), "--no-extract", cwd=tmp_path)
    assert ingest.code == 0, (ingest.stdout, ingest.frames())
    assert not raw_in(ingest.stdout), ingest.stdout
    fake_ollama.chat_script = model(lambda _prompt: ANSWER)
    screen = at_terminal("ask", "Where do quokkas dig burrows?", "--mode", "fast", cwd=tmp_path)
    assert screen.code == 0, (screen.stdout, screen.frames())
    assert not raw_in(screen.stdout), screen.stdout
    assert "\\u001b]52;c;cHduZWQ=\\u0007 \\u0000 \\u202eevil" in screen.stdout, screen.stdout
