"""What the REST write routes share: the vault folder, note paths and file-system refusals
as HTTP errors, and an ingest outcome as JSON."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fastapi import HTTPException, status

from knotwork.core import Core
from knotwork.errors import NoteNotFoundError, VaultPathError, WriteConflictError
from knotwork.ingest import NoteOutcome
from knotwork.vault_write import note_target


def vault_root(core: Core) -> Path:
    root = core.settings.vault_path
    if root is None or not root.is_dir():
        raise HTTPException(
            status.HTTP_409_CONFLICT, "no vault folder is configured (KNOTWORK_VAULT_PATH)"
        )
    return root


def note_file(root: Path, path: str) -> tuple[str, Path]:
    with as_http():
        return note_target(root, path)


@contextlib.contextmanager
def as_http() -> Iterator[None]:
    """A path the vault policy refuses: 422 for the path itself, 409 for a conflict with what
    the vault holds (a symlink, a case variant, a folder in the way), 404 for no such note."""
    try:
        yield
    except VaultPathError as exc:
        raise HTTPException(422, str(exc)) from exc
    except WriteConflictError as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from exc
    except NoteNotFoundError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from exc


# A write the file system refuses because of the mount or permissions, not because of a bug.
_READ_ONLY_ERRNOS = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})


def _read_only(reason: str) -> HTTPException:
    return HTTPException(
        status.HTTP_409_CONFLICT,
        f"the vault is read-only here ({reason}), so REST writes are refused; edit the files "
        "directly (the watcher follows them), or mount the vault writable and set "
        "KNOTWORK_VAULT_READ_ONLY=false",
    )


def writable(core: Core, root: Path) -> None:
    if core.settings.vault_read_only:
        raise _read_only("KNOTWORK_VAULT_READ_ONLY is set")
    if not os.access(root, os.W_OK):
        raise _read_only("no write permission on the vault folder")


@contextlib.contextmanager
def refused_as_409() -> Iterator[None]:
    """A write refused by the file system (read-only mount, permissions) becomes the 409."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in _READ_ONLY_ERRNOS:
            raise
        raise _read_only(f"the file system refused the write: {exc.strerror}") from exc


def outcome_json(outcome: NoteOutcome) -> dict[str, Any]:
    return {
        "path": outcome.path,
        "status": outcome.status,
        "chunks": outcome.chunks,
        "embedded": outcome.embedded,
        "facts": dict(outcome.facts),
        "added": outcome.added,
        "removed": outcome.removed,
        "warnings": outcome.warnings,
    }


def busy(rel: str, holder: dict[str, Any] | None) -> HTTPException:
    """A write refused before the file changes: the lease's holder would not ingest it."""
    who = (
        f"{holder.get('holder')} (mode {holder.get('mode') or 'unknown'}, host "
        f"{holder.get('host')}, pid {holder.get('pid')})"
        if holder
        else "another writer"
    )
    return HTTPException(
        status.HTTP_409_CONFLICT,
        f"nothing was written to {rel!r}: vault writes are held by {who}, which does not "
        "watch the vault's files, so this write would never reach the graph. Retry once it "
        "has finished (a crashed holder's lease lapses after KNOTWORK_LEASE_TTL_S), or run "
        "`knotwork watch` instead, whose lease lets REST writes through (202)",
    )
