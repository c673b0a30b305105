"""Vault files: safe paths, which files are notes, and decoding bad input without loss."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from knotwork.errors import NoteError, VaultPathError
from knotwork.vault import clean_relpath, decode, list_notes, read_note, resolve_in_vault


@pytest.mark.parametrize(
    "bad",
    ["/etc/passwd", "../x.md", "a/../../x.md", "C:\\x.md", "", "a\x00b.md", "a\nb.md", "..", "./"],
)
def test_bad_paths_are_refused(bad: str) -> None:
    with pytest.raises(VaultPathError):
        clean_relpath(bad)


def test_paths_are_normalised() -> None:
    assert clean_relpath("./People//Alice.md") == "People/Alice.md"
    assert clean_relpath("People\\Alice.md") == "People/Alice.md"
    assert clean_relpath("Ünïcödé and spaces.md") == "Ünïcödé and spaces.md"


def test_symlink_out_of_the_vault_is_refused_and_not_listed(tmp_path: Path) -> None:
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    vault.mkdir()
    outside.mkdir()
    (outside / "secret.md").write_text("secret")
    os.symlink(outside / "secret.md", vault / "link.md")
    (vault / "ok.md").write_text("ok")
    assert list_notes(vault) == ["ok.md"]
    with pytest.raises(VaultPathError, match="outside"):
        resolve_in_vault(vault, "link.md")


def test_listing_skips_config_trash_hidden_and_non_markdown(tmp_path: Path) -> None:
    for rel in [
        ".obsidian/app.md",
        ".trash/old.md",
        ".git/x.md",
        "a/.hidden/x.md",
        "img.png",
        "notes.txt",
        "a/b/Deep Note.MD",
        "Top.md",
        ".dot.md",
        "~tmp.md",
    ]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    assert list_notes(tmp_path) == ["Top.md", "a/b/Deep Note.MD"]


def test_decode_binary_huge_and_bad_utf8() -> None:
    with pytest.raises(NoteError, match="binary"):
        decode(b"\x89PNG\x00\x00", "x.md", 1000)
    with pytest.raises(NoteError, match="limit"):
        decode(b"a" * 2000, "x.md", 1000)
    note = decode(b"caf\xe9 ok", "x.md", 1000)
    assert note.text == "caf\ufffd ok" and "not valid UTF-8" in note.warnings[0]
    assert decode("\ufeffhello".encode(), "x.md", 1000).text == "hello"


def test_read_note_reports_size_before_reading(tmp_path: Path) -> None:
    (tmp_path / "big.md").write_bytes(b"a" * 5000)
    with pytest.raises(NoteError, match="5000 bytes"):
        read_note(tmp_path, "big.md", 1000)
    with pytest.raises(NoteError, match="cannot be read"):
        read_note(tmp_path, "missing.md", 1000)
