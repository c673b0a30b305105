"""The refusals a note write meets before its file changes, as ``serving.writes`` raises them:
a vault that is read-only (``KNOTWORK_VAULT_READ_ONLY``, the folder's permissions, or the file
system refusing the write), a disk or quota that is full, and a lease held by a writer that would
not ingest the write (``busy``). Each is a Knotwork error saying what to do; nothing here knows
HTTP.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from knotwork.core import Core
from knotwork.errors import LeaseHeldError, StorageFullError, WriteConflictError
from knotwork.serving.writers import Way

# A write the file system refuses because of the mount or permissions, not because of a bug.
_READ_ONLY_ERRNOS = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})


def _read_only(reason: str) -> WriteConflictError:
    return WriteConflictError(
        f"the vault is read-only here ({reason}), so writes are refused; edit the files "
        "directly (the watcher follows them), or mount the vault writable and set "
        "KNOTWORK_VAULT_READ_ONLY=false",
    )


def writable(core: Core, root: Path) -> None:
    if core.settings.vault_read_only:
        raise _read_only("KNOTWORK_VAULT_READ_ONLY is set")
    if not os.access(root, os.W_OK):
        raise _read_only("no write permission on the vault folder")


_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


def raise_if_full(exc: OSError, where: str) -> None:
    """A write that found no space left (or the quota spent) on ``where``, said so."""
    if exc.errno in _FULL_ERRNOS:
        raise StorageFullError(
            f"no space left {where} ({exc.strerror}); nothing was written"
        ) from exc


@contextmanager
def refused_as_conflict() -> Iterator[None]:
    """A write refused by the file system (read-only mount, permissions) is a conflict; one
    that finds no space left says so (a failing disk is ``vault.write``'s to say)."""
    try:
        yield
    except OSError as exc:
        raise_if_full(exc, "on the vault's file system")
        if exc.errno not in _READ_ONLY_ERRNOS:
            raise
        raise _read_only(f"the file system refused the write: {exc.strerror}") from exc


def busy(rel: str, way: Way) -> LeaseHeldError:
    """A write refused before the file changes: the lease's holder would not ingest it."""
    holder = way.holder
    if not holder:  # the take was refused with no holder to name: it changed hands meanwhile
        return LeaseHeldError(
            f"nothing was written to {rel!r}: the vault's write lease changed hands while this "
            "write waited for it; retry"
        )
    who = (
        f"{holder.get('holder')} (mode {holder.get('mode') or 'unknown'}, host "
        f"{holder.get('host')}, pid {holder.get('pid')})"
    )
    if holder and way.elsewhere:  # a watcher of another folder (VaultWriters._other_holder)
        return LeaseHeldError(
            f"nothing was written to {rel!r}: vault writes are held by {who}, a watcher of "
            f"{holder.get('folder')}, not of this server's vault folder, so this write would "
            "never reach the graph. Give the two the same KNOTWORK_VAULT_PATH, or different "
            "KNOTWORK_VAULT_NAMEs"
        )
    return LeaseHeldError(
        f"nothing was written to {rel!r}: vault writes are held by {who}, which does not "
        "watch the vault's files, so this write would never reach the graph. Retry once it "
        "has finished (a crashed holder's lease lapses after KNOTWORK_LEASE_TTL_S), or run "
        "`knotwork watch` instead: a note write made while it holds the vault is left to it "
        "(accepted), as it sees the file change",
    )
