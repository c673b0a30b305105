"""Reaching a note's file without following a link, however the folders change meanwhile.

A write's checks (``vault.write.note_target``: no symbolic link on the path) and the write
itself are apart in time: a REST write awaits Neo4j in between. A folder on the path swapped
for a link to somewhere else in that window would carry a path-based write, delete or read out
of the vault. So each reaches the note's folder from the vault folder one name at a time, each
opened relative to the one before with ``O_NOFOLLOW``: a link met on the way fails with ELOOP
(``vault.disk_errors`` makes that a 409 naming the path) and never leads anywhere. The file is
then read, created, replaced and removed relative to that folder's descriptor. The vault folder
itself may be a link; only what lies inside it is never followed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


@contextlib.contextmanager
def note_folder(root: Path, rel: str, *, create: bool) -> Iterator[int]:
    """A descriptor of the folder holding ``rel``'s file, reached from ``root`` without
    following a link; with ``create``, folders missing on the way are made. OSError as the
    system says it: ELOOP for a link on the way, ENOENT for a folder missing, ENOTDIR for a
    file in the way."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    try:
        for part in rel.split("/")[:-1]:
            try:
                inner = _open_folder(fd, part)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):  # made meanwhile: opened below
                    os.mkdir(part, 0o777, dir_fd=fd)
                inner = _open_folder(fd, part)
            os.close(fd)
            fd = inner
        yield fd
    finally:
        os.close(fd)


def _open_folder(parent: int, name: str) -> int:
    """The folder ``name`` in ``parent``, never through a link: ELOOP for a link (Linux says
    ENOTDIR for a link opened as a folder without following it), ENOTDIR for a file."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except NotADirectoryError:
        if stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name) from None
        raise


class NotRegularFileError(OSError):
    """The name is a pipe, socket or device, not a file: never opened (a device's open may do
    something, a socket's fails with an error that names neither)."""


def open_file(root: Path, rel: str) -> int:
    """A descriptor of ``rel``'s file, reached without following a link (ELOOP for one);
    NotRegularFileError for a pipe, socket or device. Opened without waiting, so a pipe put in
    the file's place since it was looked at is opened, not waited on, for the caller to refuse
    by its ``fstat``."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    name = rel.rsplit("/", 1)[-1]
    with note_folder(root, rel, create=False) as folder:
        kind = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
        if stat.S_ISLNK(kind):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name)
        if not stat.S_ISREG(kind):
            raise NotRegularFileError(errno.EINVAL, "not a regular file", name)
        return os.open(name, flags, dir_fd=folder)


def replace_file(folder: int, name: str, data: bytes, new_mode: int) -> float:
    """Replace (or create) ``name`` in ``folder`` atomically: a temporary file beside it,
    flushed, renamed over it; its modification time, read from the file written (a rename
    keeps it). The file keeps its permission bits; a new one gets ``new_mode``. A link at
    ``name`` is replaced by the file, never written through."""
    try:
        mode = stat.S_IMODE(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        mode = new_mode
    tmp = f".knotwork-{secrets.token_hex(8)}.tmp"  # hidden: no scan takes it for a note
    fd = os.open(tmp, _NEW_FILE, 0o600, dir_fd=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            os.fchmod(out.fileno(), mode)
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
            mtime = os.fstat(out.fileno()).st_mtime
        os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=folder)
        raise
    sync(folder)
    return mtime


def remove_file(folder: int, name: str) -> None:
    """Remove ``name`` from ``folder``; FileNotFoundError when it is not there, and ELOOP
    when it became a link since it was checked (the link is left alone)."""
    if stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode):
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name)
    os.unlink(name, dir_fd=folder)
    sync(folder)


def sync(folder: int) -> None:
    """Flush an open folder's entries (``vault.folders.sync_folder`` for one by path);
    skipped where the system cannot flush a folder."""
    with contextlib.suppress(OSError):
        os.fsync(folder)
