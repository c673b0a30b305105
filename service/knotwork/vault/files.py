"""The vault on disk: which files are notes, reading them safely, keeping paths inside (the
folders themselves, their identity and flushing them: ``vault.folders``).

Symbolic links inside the vault are never followed: a linked note or folder is not ingested
(with a warning saying whether its target is, ``vault.links``), and nothing is written or
deleted through a link (``vault_write``).
"""

from __future__ import annotations

import errno
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from knotwork.errors import KnotworkError, NoteError, NoteTooLargeError, VaultPathError
from knotwork.text.digest import text_hash
from knotwork.text.keys import link_key
from knotwork.vault.links import link_warning
from knotwork.vault.nofollow import NotRegularFileError, open_file
from knotwork.vault.variants import variants_warning
from knotwork.vault.walk import walk

# Re-exported: ingest, watch and the API import the folder helpers from here.

# Folders no vault tool should read: Obsidian's config and trash, VCS data, dependencies.
IGNORED_DIRS = frozenset({".obsidian", ".trash", ".git", ".hg", ".svn", "node_modules"})
# C0, DEL, C1 and the line/paragraph separators: no link, request or log line can name these.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# A drive ("C:/notes", "C:"), not a name that opens with a letter and a colon ("Q: why.md").
DRIVE = re.compile(r"^[A-Za-z]:(?:/|$)")


def clean_relpath(path: str) -> str:
    """A vault-relative POSIX path, or VaultPathError saying what is wrong with it."""
    if not path or CONTROL.search(path):
        raise VaultPathError(f"note path {path!r} is empty or holds control characters")
    posix = path.replace("\\", "/")
    pure = PurePosixPath(posix)
    if pure.is_absolute() or DRIVE.match(posix):
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
    try:
        full = (base / rel).resolve()
    except RuntimeError as exc:  # Python < 3.13 says a loop of symbolic links this way
        raise VaultPathError(f"note path {path!r} runs into a loop of symbolic links") from exc
    if full != base and base not in full.parents:  # the server's own paths stay unsaid
        raise VaultPathError(f"note path {path!r} resolves outside the vault")
    return full


def fold(name: str) -> str:
    """How names compare when letter case must not matter: NFC, lower case (as links do)."""
    return unicodedata.normalize("NFC", name).lower()


def _ignored_dir(name: str) -> bool:
    return name.startswith(".") or fold(name) in IGNORED_DIRS


def note_path_problem(rel: str) -> str | None:
    """Why a clean vault-relative path is not a note Knotwork reads, or None when it is one.

    The one predicate behind the watcher, ingest (``scan_notes``) and the REST write routes:
    Markdown (``.md``, any case) only; never in a hidden folder (``.obsidian``, ``.trash``,
    ``.git``, any ``.name``, in any letter case) nor in ``node_modules``; never a hidden or
    temporary file (a name starting with '.' or '~', as editors' swap and lock files do).
    """
    parts = PurePosixPath(rel).parts
    if not parts or not parts[-1].lower().endswith(".md"):
        return f"{rel!r} is not a Markdown note: a note's name ends in .md"
    for part in parts[:-1]:
        if _ignored_dir(part):
            return (
                f"{rel!r} lies in the folder {part!r}, which Knotwork ignores (hidden folders, "
                "Obsidian's .obsidian and .trash, version control, node_modules)"
            )
    if parts[-1].startswith((".", "~")):
        return (
            f"{rel!r} is a hidden or temporary file name (it starts with '.' or '~'), "
            "which Knotwork ignores"
        )
    return bad_name(rel)  # after the places ignored anyway: only a note's name is worth a word


def bad_name(rel: str) -> str | None:
    """Why a Markdown file's name, as read from disk, cannot be a note's path: said to the
    user (a scan's error: a file not ingested), since only renaming the file helps."""
    if not _utf8(rel):
        return f"{rel!r}: the name is not valid UTF-8, so the graph cannot record it; rename it"
    if "\\" in rel:  # only a name read from disk: clean_relpath turns one in a request to '/'
        return (
            f"{rel!r}: a backslash in a note's name reads as a folder separator (as Windows and "
            "Obsidian read it), so the note would be taken for another; rename it"
        )
    if CONTROL.search(rel):  # a tab or a newline: no link, request or log line can name it
        return f"{rel!r}: the name holds a control character (a tab, a newline); rename it"
    return None


def _utf8(name: str) -> bool:
    """Whether a name read from the file system is valid UTF-8 (undecodable bytes come back
    as lone surrogates, which Neo4j's driver cannot send)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def is_note(rel: str) -> bool:
    return note_path_problem(rel) is None


def symlink_on_path(root: Path, rel: str) -> str | None:
    """The first part of ``rel`` (a file or a folder inside the vault) that is a symbolic
    link, as a vault-relative path; None when no part of it is one. The vault folder itself
    may be a link: only what lies inside it counts."""
    base = root.resolve()
    parts = PurePosixPath(rel).parts
    for i in range(1, len(parts) + 1):
        if (base.joinpath(*parts[:i])).is_symlink():
            return "/".join(parts[:i])
    return None


@dataclass
class NoteScan:
    paths: list[str]  # sorted vault-relative paths of the notes
    warnings: list[str] = field(default_factory=list)
    # Markdown files whose names cannot be a note's path: not ingested, like a binary file.
    errors: list[str] = field(default_factory=list)
    # Folders that could not be listed (vault-relative, "." for the vault itself), with why:
    # what the graph holds under them is unknown to the scan, not gone.
    unreadable: dict[str, str] = field(default_factory=dict)

    def unseen(self, path: str) -> bool:
        """Whether ``path`` lies under a folder the scan could not list."""
        return any(folder == "." or path.startswith(f"{folder}/") for folder in self.unreadable)


def scan_notes(root: Path) -> NoteScan:
    """Every note in the vault, with warnings about what was left out and why, and errors
    for the Markdown files left out whose names cannot be a note's path.

    Symbolic links (to a note or to a folder) are never followed, inside the vault or out of
    it: the graph records a note under its own path only, with its own text. Notes whose
    paths differ only by letter case are both listed, with a warning naming them and the one
    that links resolve to (see ``link_winner``).
    """
    base = root.resolve()
    scan = NoteScan([])

    def unreadable(exc: OSError) -> None:
        where = Path(exc.filename or base)
        rel = where.relative_to(base).as_posix() if where.is_relative_to(base) else "."
        scan.unreadable[rel or "."] = exc.strerror or str(exc)

    for listed in walk(str(base), unreadable):  # no recursion: any depth (vault/walk.py)
        current, kept = listed.path, []
        for name in sorted(listed.dirs):
            if _ignored_dir(name):
                continue
            if name in listed.links:
                rel = Path(current, name).relative_to(base).as_posix()
                scan.warnings.append(
                    f"{rel}: a symbolic link to a folder; its notes are not ingested "
                    "(Knotwork never follows links)"
                )
                continue
            kept.append(name)
        listed.dirs = kept
        for name in listed.files:
            full = Path(current, name)
            rel = full.relative_to(base).as_posix()
            if not is_note(rel):
                hidden = name.startswith((".", "~"))  # ignored whatever its name holds
                if rel.lower().endswith(".md") and not hidden and (problem := bad_name(rel)):
                    scan.errors.append(problem)
                continue
            if name in listed.links:
                scan.warnings.append(link_warning(base, full, rel))
                continue
            scan.paths.append(rel)
    scan.paths.sort()
    groups: dict[str, list[str]] = {}
    for rel in scan.paths:
        groups.setdefault(link_key(rel), []).append(rel)  # what links cannot tell apart
    for group in groups.values():
        if len(group) > 1:
            scan.warnings.append(variants_warning(group, link_winner(group)))
    return scan


def link_winner(paths: list[str]) -> str:
    """Of notes whose paths differ only by case, the one a link resolves to: the path that
    sorts first by character code (capitals before lower case), as the link queries order."""
    return min(paths)


def list_notes(root: Path) -> list[str]:
    """Every note in the vault, as sorted vault-relative paths; symbolic links are skipped."""
    return scan_notes(root).paths


@dataclass
class NoteText:
    text: str
    mtime: float
    warnings: list[str] = field(default_factory=list)


def decode(data: bytes, rel: str, max_bytes: int) -> NoteText:
    """Bytes → text; NoteError for binary or oversized files, a warning for bad UTF-8."""
    if len(data) > max_bytes:
        raise NoteTooLargeError(
            f"{rel}: {len(data)} bytes is over the {max_bytes}-byte limit "
            "(KNOTWORK_MAX_NOTE_BYTES); skipped"
        )
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # Notepad's "Unicode"
        raise NoteError(f"{rel}: is UTF-16 text (a byte-order mark says so); save it as UTF-8")
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
    try:  # a path past the system's limit (a folder nested thousands deep) is unreadable
        if link := symlink_on_path(root, clean_relpath(rel)):  # before resolving: it may loop
            raise NoteError(
                f"{rel}: {link} is a symbolic link, which Knotwork never follows; skipped"
            )
        resolve_in_vault(root, rel)  # a loop of links, or a path resolving outside, said as such
    except OSError as exc:
        raise NoteError(f"{rel}: cannot be read ({exc.strerror or exc})") from exc
    try:
        # Opened from the vault folder without following a link (a folder swapped for one
        # since the check above fails) and without waiting (a pipe named like a note would
        # wait, and every sync behind it, until something wrote to it): a regular file only.
        with open(open_file(root, clean_relpath(rel)), "rb") as file:
            info = os.fstat(file.fileno())
            if not stat.S_ISREG(info.st_mode):  # one put in the file's place meanwhile
                raise NotRegularFileError(errno.EINVAL, "not a regular file", rel)
            if info.st_size > max_bytes:
                raise NoteTooLargeError(
                    f"{rel}: {info.st_size} bytes is over the {max_bytes}-byte limit "
                    "(KNOTWORK_MAX_NOTE_BYTES); skipped"
                )
            data = file.read(max_bytes + 1)  # a file grown since its size was read: refused
            note = decode(data, rel, max_bytes)
            note.mtime = os.fstat(file.fileno()).st_mtime
    except NotRegularFileError as exc:
        raise NoteError(f"{rel}: not a regular file (a pipe, socket or device); skipped") from exc
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NoteError(f"{rel}: a symbolic link appeared on its path; skipped") from exc
        raise NoteError(f"{rel}: cannot be read ({exc.strerror or exc})") from exc
    return note


def read_group(
    root: Path, paths: list[str], limit: int
) -> list[tuple[str, tuple[NoteText, str] | KnotworkError]]:
    """Each note's text and content hash, or why it cannot be read."""
    out: list[tuple[str, tuple[NoteText, str] | KnotworkError]] = []
    for path in paths:
        try:
            note = read_note(root, path, limit)
        except KnotworkError as exc:
            out.append((path, exc))
            continue
        digest = text_hash(note.text)
        out.append((path, (note, digest)))
    return out
