"""Markdown files whose names cannot be a note's path (not UTF-8, a backslash, a newline):
`ingest` counts them as files it could not ingest (an error, exit 1), as a binary file, and
the rest of the vault lands; `verify` names them without calling them differences."""

from __future__ import annotations

import os
from pathlib import Path

from typer.testing import CliRunner

from knotwork.cli import app as cli


def _vault_with_bad_names(tmp_path: Path) -> Path:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "ok.md").write_text("# ok\n", encoding="utf-8")
    (vault / os.fsdecode(b"bad\xffname.md")).write_text("# a\n", encoding="utf-8")
    (vault / "new\nline.md").write_text("# nl\n", encoding="utf-8")
    (vault / "back\\slash.md").write_text("# bs\n", encoding="utf-8")
    return vault


def test_ingest_exits_1_for_markdown_files_whose_names_no_note_can_have(
    env: None, tmp_path: Path
) -> None:
    vault = _vault_with_bad_names(tmp_path)
    result = CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    assert result.exit_code == 1, result.output
    out = result.output
    assert "notes 1: written 1" in out  # the rest of the vault lands
    errors = [line for line in out.splitlines() if line.startswith("error: ")]
    assert len(errors) == 3, out
    assert any("not valid UTF-8" in e and "rename it" in e for e in errors)
    assert any("control character" in e for e in errors)
    assert any("backslash" in e for e in errors)
    assert "warning: 'back" not in out  # no longer only a warning


def test_verify_lists_them_as_files_it_cannot_ingest_and_agrees_otherwise(
    env: None, tmp_path: Path
) -> None:
    vault = _vault_with_bad_names(tmp_path)
    CliRunner().invoke(cli, ["ingest", str(vault), "--no-extract"])
    result = CliRunner().invoke(cli, ["verify", str(vault)])
    assert result.exit_code == 0, result.output  # not a difference: nothing an ingest mends
    out = result.output
    assert out.count("cannot ingest '") == 3, out
    assert "graph and vault agree" in out
