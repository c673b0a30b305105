"""What the file system says about a note write or delete, as Knotwork errors: a disk or mount
that fails is ``VaultUnavailableError`` (a 503, nothing changed), and the path's own problems —
a symbolic link appeared on it, a name too long, a file or a folder in the way — are 4xx
refusals (``WriteConflictError``, ``VaultPathError``). The rest (a read-only mount, permissions,
a full disk) is the caller's to map (``serving.refusals``).
"""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Iterator

from knotwork.errors import VaultPathError, VaultUnavailableError, WriteConflictError

# The vault's disk or mount failing (a failing disk, a network or FUSE mount gone), not the
# request: a 503, as for a vault folder that is not there.
FAILING_ERRNOS = frozenset(
    {errno.EIO, errno.ENXIO, errno.ENODEV, errno.ESTALE, errno.ENOTCONN, errno.ETIMEDOUT}
)


def failing_disk(exc: OSError, where: str) -> VaultUnavailableError | None:
    """The error to raise for ``exc`` when the disk or the mount under ``where`` failed."""
    if exc.errno not in FAILING_ERRNOS:
        return None
    return VaultUnavailableError(
        f"the vault's file system failed at {where} ({exc.strerror}); nothing was changed. "
        "Check the disk or the mount, then try again"
    )


@contextlib.contextmanager
def file_errors(rel: str) -> Iterator[None]:
    """What the file system says about the path itself becomes a 4xx error, and a disk or
    mount that fails a 503; the rest (a read-only mount, permissions, a full disk) is the
    caller's to map."""
    try:
        yield
    except OSError as exc:
        if failed := failing_disk(exc, repr(rel)):
            raise failed from exc
        if exc.errno == errno.ELOOP:  # a link that appeared on the path since its check
            raise WriteConflictError(
                f"{rel!r} runs through a symbolic link (or a loop of them); Knotwork never "
                "writes or deletes through links, so nothing was changed"
            ) from exc
        if exc.errno == errno.ENAMETOOLONG:
            raise VaultPathError(f"note path {rel!r} is too long for the file system") from exc
        if exc.errno in (errno.ENOTDIR, errno.EEXIST):
            raise WriteConflictError(
                f"a part of {rel!r} above the note is a file, not a folder; nothing was written"
            ) from exc
        if exc.errno == errno.EISDIR:
            raise WriteConflictError(f"{rel!r} is a folder; a note cannot replace it") from exc
        raise
