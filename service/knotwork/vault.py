"""The vault on disk: which files are notes, reading them safely, keeping paths inside."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from knotwork.errors import NoteError, VaultPathError

# Folders no vault tool should read: Obsidian's config and trash, VCS data, dependencies.
IGNORED_DIRS = frozenset({".obsidian", ".trash", ".git", ".hg", ".svn", "node_modules"})
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def clean_relpath(path: str) -> str:
    """A vault-relative POSIX path, or VaultPathError saying what is wrong with it."""
    if not path or _CONTROL.search(path):
        raise VaultPathError(f"note path {path!r} is empty or holds control characters")
    posix = path.replace("\\", "/")
    pure = PurePosixPath(posix)
    if pure.is_absolute() or re.match(r"^[A-Za-z]:", posix):
        raise VaultPathError(f"note path {path!r} is absolute; give it relative to the vault")
    if any(part == ".." for part in pure.parts):
        raise VaultPathError(f"note path {path!r} climbs out of the vault with '..'")
    parts = [p for p in pure.parts if p not in ("", ".")]
    if not parts:
        raise VaultPathError(f"note path {path!r} names no file")
    return "/".join(parts)


def resolve_in_vault(root: Path, path: str) -> Path:
    """The absolute file for a vault-relative path; refuses anything resolving outside."""
    rel = clean_relpath(path)
    base = root.resolve()
    full = (base / rel).resolve()
    if full != base and base not in full.parents:
        raise VaultPathError(f"note path {path!r} resolves outside the vault ({full})")
    return full


def is_note(rel: str) -> bool:
    parts = PurePosixPath(rel).parts
    return (
        rel.lower().endswith(".md")
        and not any(p in IGNORED_DIRS for p in parts[:-1])
        and not parts[-1].startswith((".", "~"))
    )


def list_notes(root: Path) -> list[str]:
    """Every note in the vault, as sorted vault-relative paths; symlinks leaving it are skipped."""
    base = root.resolve()
    found: list[str] = []
    for current, dirs, files in os.walk(base, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in IGNORED_DIRS and not d.startswith("."))
        for name in files:
            full = Path(current, name)
            rel = full.relative_to(base).as_posix()
            if not is_note(rel):
                continue
            if full.is_symlink():
                target = full.resolve()
                if base not in target.parents:
                    continue
            found.append(rel)
    return sorted(found)


@dataclass
class NoteText:
    text: str
    mtime: float
    warnings: list[str] = field(default_factory=list)


def decode(data: bytes, rel: str, max_bytes: int) -> NoteText:
    """Bytes → text; NoteError for binary or oversized files, a warning for bad UTF-8."""
    if len(data) > max_bytes:
        raise NoteError(
            f"{rel}: {len(data)} bytes is over the {max_bytes}-byte limit "
            "(KNOTWORK_MAX_NOTE_BYTES); skipped"
        )
    if b"\x00" in data[:8192]:
        raise NoteError(f"{rel}: looks binary (NUL bytes); skipped")
    warnings: list[str] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        warnings.append(
            f"{rel}: not valid UTF-8 (first bad byte at offset {exc.start}); "
            "undecodable bytes were replaced with U+FFFD"
        )
    return NoteText(text=text.removeprefix("\ufeff"), mtime=0.0, warnings=warnings)


def read_note(root: Path, rel: str, max_bytes: int) -> NoteText:
    full = resolve_in_vault(root, rel)
    try:
        size = full.stat().st_size
        if size > max_bytes:
            raise NoteError(
                f"{rel}: {size} bytes is over the {max_bytes}-byte limit "
                "(KNOTWORK_MAX_NOTE_BYTES); skipped"
            )
        note = decode(full.read_bytes(), rel, max_bytes)
        note.mtime = full.stat().st_mtime
    except OSError as exc:
        raise NoteError(f"{rel}: cannot be read ({exc.strerror or exc})") from exc
    return note
