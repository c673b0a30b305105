"""Untrusted text (a note's, a model's) reaches a terminal with its control characters escaped:
the one function every CLI line, log record and progress bar goes through."""

from __future__ import annotations

import importlib
import io
import json
import logging

import pytest
from rich.console import Console

from knotwork.cli.escaped import EscapingFilter, escaped

cli_app = importlib.import_module("knotwork.cli.app")  # the module; the package exports `app`

HOSTILE = "a\x1b]0;PWNED\x07b\x1b[2Jc\x00d\x7fe\x85f\x9b31mg\u202eh\u202ai\u2066j\u2069k\rl\x08m"


def test_control_characters_are_shown_as_their_escapes() -> None:
    assert escaped(HOSTILE) == (
        "a\\u001b]0;PWNED\\u0007b\\u001b[2Jc\\u0000d\\u007fe\\u0085f\\u009b31mg\\u202eh"
        "\\u202ai\\u2066j\\u2069k\\u000dl\\u0008m"
    )


def test_text_a_person_writes_is_left_as_it_is() -> None:
    """Lines and tabs, every script, emoji, and the marks right-to-left text needs (LRM, RLM,
    ALM, ZWJ): only overrides and isolates reorder what is read."""
    kept = "line\n\tTab — Größe 北京 שָׁלוֹם\u200f مرحبا\u061c \u200e👩\u200d💻 [bold]x[/]"
    assert escaped(kept) == kept


def test_a_stream_escapes_piece_by_piece_as_its_whole() -> None:
    pieces = [HOSTILE[i : i + 3] for i in range(0, len(HOSTILE), 3)]
    assert "".join(escaped(p) for p in pieces) == escaped(HOSTILE)


def test_json_text_escaped_is_the_same_document() -> None:
    body = {"answer": HOSTILE, "path": "x\\\u202e.md", "n": [1, "\u0085"]}
    printed = escaped(json.dumps(body, ensure_ascii=False, indent=2))
    assert not any(c in printed for c in "\x1b\x07\x00\x7f\x85\x9b\u202e\u2066")
    assert json.loads(printed) == body


def test_log_records_naming_a_note_are_escaped() -> None:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(EscapingFilter())
    log = logging.getLogger("test_cli_escaped")
    log.addHandler(handler)
    try:
        log.warning("cannot read %s", "n\x1b]52;c;eA==\x07.md")
        try:
            raise ValueError("t\x1b[2J")
        except ValueError:
            log.exception("failed")
    finally:
        log.removeHandler(handler)
    written = out.getvalue()
    assert "\x1b" not in written and "\x07" not in written, written
    assert "cannot read n\\u001b]52;c;eA==\\u0007.md" in written
    assert "ValueError: t\\u001b[2J" in written


def test_the_progress_bar_shows_a_paths_markup_and_controls_as_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """rich read a path's "[/x]" as a closing tag: MarkupError, the sync stopped."""
    out = io.StringIO()
    terminal = Console(file=out, force_terminal=True, width=120)
    monkeypatch.setattr(cli_app, "console", lambda: terminal)
    with cli_app.progress_bar() as progress:
        progress(1, 2, "writing notes: a [/x] \x1b]0;T\x07.md")
    drawn = out.getvalue()
    assert "[/x] \\u001b]0;T\\u0007.md" in drawn and "\x07" not in drawn, drawn
