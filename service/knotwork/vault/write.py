"""Writing and deleting note files for writers that are not the file system (the REST routes).

What a write may touch, and how:

- **Ignored places** are refused (``VaultPathError``): every path the watcher and ingest skip
  (``vault.note_path_problem``), so a note is never written where the next sync drops it.
- **Symbolic links** are never written or deleted through (``WriteConflictError`` naming the
  link): not the note's file, not any folder above it inside the vault. A link's target is
  another note, or a file outside the vault; writing "through" it would change that file while
  the graph records the link's name.
- **Case variants**: a note whose path differs only by letter case from one on disk or in the
  graph is refused (``WriteConflictError`` naming it), because links resolve without case and
  the new note would take over the old one's links.
- **Unicode forms**: a name the vault holds in another Unicode form ("Café" decomposed, as
  macOS lists it, asked for composed) is the same note: the request is spelled as the disk
  lists it (``spelled_on_disk``), so it rewrites or deletes that file and its graph note.
- **Folders and files in the way**: a note onto a folder, or under a file, is refused
  (``WriteConflictError``); a name longer than 255 bytes, or a note more than
  ``MAX_FOLDER_DEPTH`` folders deep, is refused (``VaultPathError``).
- **File metadata**: the file is replaced atomically (a temp file in the same folder, fsync,
  rename over), keeping the permission bits of the file it replaces; a new file gets the
  process umask's default (``0666 & ~umask``), as an editor's would. A replace is a new file:
  hard links to the old one keep the old text, and the owner is the service's user.

Callers hold the note's lock (``Core.note_locks``) around the check and the write. What the
file system answers (a failing disk, a name too long, a file in the way) is mapped to Knotwork's
errors by ``vault.disk_errors``.
"""

from __future__ import annotations

import contextlib
import os
import threading
import unicodedata
from pathlib import Path

from knotwork.errors import NoteNotFoundError, VaultPathError, WriteConflictError
from knotwork.graph.queries.writes import NOTE_CASE_VARIANTS
from knotwork.graph.store import GraphStore
from knotwork.text.keys import link_key
from knotwork.vault.disk_errors import failing_disk, file_errors
from knotwork.vault.files import (
    clean_relpath,
    fold,
    note_path_problem,
    resolve_in_vault,
    symlink_on_path,
)
from knotwork.vault.nofollow import note_folder, remove_file, replace_file
from knotwork.vault.variants import with_form

MAX_NAME_BYTES = 255  # per file or folder name, as ext4, APFS, NTFS and most others allow
MAX_PATH_BYTES = 4096  # per path: Linux's PATH_MAX, as MCP's NotePath bounds it
# Folders a write may nest a note in: far beyond any vault's, far below what tools walking
# the folder (watchdog's own recursive listing among them) take in their stride.
MAX_FOLDER_DEPTH = 64
_UMASK_LOCK = threading.Lock()


def checked_relpath(path: str) -> str:
    """The clean vault-relative path (``clean_relpath``), or VaultPathError for one no file
    system holds: a name over 255 bytes, a path over 4096, invalid Unicode. Reads check it as
    writes do, so a huge path is refused with its start, never echoed back whole."""
    rel = clean_relpath(path)
    try:
        size = len(rel.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise VaultPathError(f"note path {rel[:80]!r} is not valid Unicode") from exc
    for part in rel.split("/"):
        if (long := len(part.encode("utf-8"))) > MAX_NAME_BYTES:
            raise VaultPathError(
                f"the name {part[:40]!r}… in note path {rel[:80]!r} is {long} bytes long; file "
                f"systems allow at most {MAX_NAME_BYTES} bytes per name"
            )
    if size > MAX_PATH_BYTES:
        raise VaultPathError(
            f"note path {rel[:80]!r}… is {size} bytes long; file systems allow at most "
            f"{MAX_PATH_BYTES} bytes per path"
        )
    return rel


def note_target(root: Path, path: str, *, deleting: bool = False) -> tuple[str, Path]:
    """The clean vault-relative path and the file for a write or delete of a note.

    VaultPathError (a 422) for a path that is not a note path, is ignored, holds a name over
    255 bytes or is over 4096, lies more than MAX_FOLDER_DEPTH folders deep (a write only: a
    delete makes no folder, and takes a note the disk already nests deeper), or resolves
    outside the vault; WriteConflictError (a 409) for a path through a symbolic link inside
    the vault.
    """
    rel = checked_relpath(path)
    if problem := note_path_problem(rel):
        raise VaultPathError(problem)
    if not deleting and (depth := rel.count("/")) > MAX_FOLDER_DEPTH:
        raise VaultPathError(
            f"note path {rel[:80]!r}… lies {depth} folders deep; a note is written at most "
            f"{MAX_FOLDER_DEPTH} folders deep (nothing was written)"
        )
    rel = spelled_on_disk(root, rel)
    with file_errors(rel):  # links first: one pointing outside, or in a loop, is named
        link = symlink_on_path(root, rel)
        if link:
            which = "is" if link == rel else f"lies under {link!r}, which is"
            raise WriteConflictError(
                f"{rel!r} {which} a symbolic link; Knotwork never writes or deletes through "
                "links (the change would land on the link's target). Write the target's own "
                "path instead"
            )
        full = resolve_in_vault(root, rel)
    return rel, full


def spelled_on_disk(root: Path, rel: str) -> str:
    """``rel`` with each name the vault already holds in another Unicode form spelled as the
    disk lists it. "Café" composed and decomposed are one name to a user and to macOS (whose
    HFS+ lists decomposed a name written composed, and whose APFS keeps either), but two to
    the graph and to Linux: a request in the other form must reach the file, and the graph
    note, that the folder's own listing named. A name held exactly, missing, or matching
    several names only by form is kept as given."""
    folder, spelled = root, []
    for part in rel.split("/"):
        with contextlib.suppress(OSError):  # a folder not there (yet): kept as given
            part = _listed_as(os.listdir(folder), part) or part
        spelled.append(part)
        folder = folder / part
    return "/".join(spelled)


def _listed_as(names: list[str], part: str) -> str | None:
    """The name of a folder's listing ``names`` that ``part`` names: itself, or else the one
    name that is the same text in another Unicode form; None when none (or several) is."""
    if part in names:
        return part
    want = unicodedata.normalize("NFC", part)
    same = [n for n in names if unicodedata.normalize("NFC", n) == want]
    return same[0] if len(same) == 1 else None


def unicode_forms(rel: str) -> list[str]:
    """``rel`` and the same text composed and decomposed: the paths the graph may hold it by."""
    return list(dict.fromkeys([rel, *(unicodedata.normalize(f, rel) for f in ("NFC", "NFD"))]))


def case_variants_on_disk(root: Path, rel: str) -> list[str]:
    """Files whose vault-relative path differs from ``rel`` only by letter case."""
    found: list[tuple[str, Path]] = [("", root.resolve())]
    for part in rel.split("/"):
        want, deeper = fold(part), []
        for prefix, folder in found:
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            deeper += [(f"{prefix}{name}", folder / name) for name in names if fold(name) == want]
        found = [(f"{p}/", f) for p, f in deeper]
    return sorted(p[:-1] for p, full in found if p[:-1] != rel and full.is_file())


async def case_variants(store: GraphStore, vault: str, root: Path, rel: str) -> list[str]:
    """Notes on disk or in the graph whose path differs from ``rel`` only by letter case (in
    the graph: or by anything else its links cannot tell apart, as whitespace around it)."""
    lpath = link_key(rel)  # as the graph keys notes: " foo.md" and "Foo.md" share links
    rows = await store.read(
        NOTE_CASE_VARIANTS, vault=vault, stem=lpath.rsplit("/", 1)[-1], lpath=lpath, path=rel
    )
    return sorted({*case_variants_on_disk(root, rel), *(row["path"] for row in rows)})


def refuse_case_variants(rel: str, variants: list[str]) -> None:
    if not variants:
        return
    # The same text in another form: the graph's, its file gone (the disk's is spelled as listed).
    if all(_same_form(v, rel) for v in variants):
        named = " and ".join(_with_form(v) for v in variants)
        raise WriteConflictError(
            f"{_with_form(rel)} differs only in Unicode form (an accent written as one "
            f"character or as two) from the existing note {named}; links resolve without "
            "it, so it would take over that note's links. Write to the existing path, or "
            "pick another name"
        )
    raise WriteConflictError(
        f"{rel!r} differs only in letter case (or spaces around it) from the existing note "
        f"{' and '.join(repr(v) for v in variants)}; links resolve without case, so it would "
        "take over that note's links. Write to the existing path, or pick another name"
    )


def _same_form(name: str, other: str) -> bool:
    return unicodedata.normalize("NFC", name) == unicodedata.normalize("NFC", other)


def _with_form(name: str) -> str:
    """``name`` quoted, with its Unicode form: two forms of one name look the same."""
    return repr(name) + with_form(name)[len(name) :]


def exists_exactly(full: Path, root: Path | None = None, *, strict: bool = False) -> bool:
    """A regular file at exactly this name (a case-insensitive file system would also answer
    for a case variant, which is another note); with ``root``, every folder from it spelled
    exactly too (``Notes/x.md`` is gone once ``Notes`` was renamed ``notes``). Names compare
    in one Unicode form: HFS+ lists a name decomposed that was written composed. ``strict``:
    a disk or mount that fails is VaultUnavailableError, not an absent file (a delete must
    not take a note from the graph whose file it could not see)."""
    try:
        if not full.is_file():
            return False
        parts = full.relative_to(root).parts if root is not None else (full.name,)
        folder = root if root is not None else full.parent
        for part in parts:
            if _listed_as(os.listdir(folder), part) is None:
                return False
            folder = folder / part
        return True
    except OSError as exc:
        if strict and (failed := failing_disk(exc, str(full))):
            raise failed from exc
        return False
    except ValueError:
        return False


def note_on_disk(root: Path, rel: str) -> str | None:
    """How the disk spells the note file ``rel`` names (HFS+ lists a new name decomposed), or
    None when none is there: a regular file at exactly that name, reached through no symbolic
    link — the file a pending write's replay upserts (else it deletes the note), as the watcher
    sees it."""
    if symlink_on_path(root, rel) is None and exists_exactly(root / rel, root):
        return spelled_on_disk(root, rel)
    return None


def _check_place(root: Path, rel: str) -> None:
    """Refuse a note under a file, over a folder, or under a folder spelled with other letter
    case than the one on disk: a case-insensitive file system would put it in that folder
    while the graph records the path as written."""
    base, parts = root.resolve(), rel.split("/")
    for i in range(1, len(parts)):
        parent, name = base.joinpath(*parts[: i - 1]), parts[i - 1]
        try:
            names = os.listdir(parent)
        except OSError:
            break
        if name not in names:
            if spelled := [n for n in names if fold(n) == fold(name)]:
                on_disk = "/".join([*parts[: i - 1], spelled[0]])
                folder = "/".join(parts[:i])
                how = "Unicode form" if _same_form(name, spelled[0]) else "letter case"
                raise WriteConflictError(
                    f"the folder {folder!r} differs only in {how} from the existing folder "
                    f"{on_disk!r}; write the note under {on_disk!r}"
                )
            break  # a folder to create
        if not (parent / name).is_dir():
            raise WriteConflictError(
                f"{'/'.join(parts[:i])!r} is a file, so the note {rel!r} cannot be written under it"
            )
    if base.joinpath(*parts).is_dir():
        raise WriteConflictError(f"{rel!r} is a folder; a note cannot replace it")


def umask() -> int:
    """The process umask, read without changing it where the system allows."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    with _UMASK_LOCK:  # elsewhere: set and restore at once
        mask = os.umask(0o077)
        os.umask(mask)
    return mask


def write_note_file(root: Path, rel: str, full: Path, data: bytes) -> float:
    """Replace (or create) the note's file ``full`` (``rel`` in the vault) atomically, keeping
    its permission bits; the written file's modification time. The file is reached from the
    vault folder without following a link (``vault.nofollow``): a folder swapped for a link
    since ``note_target`` is a 409, never a write at the link's target. A folder another
    write made meanwhile in another Unicode form of the same name is the same folder to the
    user: the note goes in it (spelled on disk just before, with no await in between)."""
    rel = spelled_on_disk(root, rel)
    with file_errors(rel):
        _check_place(root, rel)
        with note_folder(root, rel, create=True) as folder:
            return replace_file(folder, rel.rsplit("/", 1)[-1], data, 0o666 & ~umask())


def delete_note_file(root: Path, rel: str, full: Path) -> None:
    """Remove the note's file; NoteNotFoundError when it is not there (any more), at exactly
    this path from the vault's root. Reached as a write is, never through a link."""
    if not exists_exactly(full, root.resolve(), strict=True):
        raise NoteNotFoundError(f"no note {rel!r} in the vault")
    with file_errors(rel):
        try:
            with note_folder(root, rel, create=False) as folder:
                remove_file(folder, full.name)
        except FileNotFoundError as exc:
            raise NoteNotFoundError(f"no note {rel!r} in the vault") from exc
