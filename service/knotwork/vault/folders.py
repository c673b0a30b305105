"""The vault folder and the folders in it as the file system has them: a folder's identity
(another once deleted and made again), whether it is another folder than the one a vault was
synced from, why the vault folder shows nothing, and flushing a folder's entries to the disk.
Nothing here reads a note.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING

from knotwork.graph.queries.writes import VAULT_FOLDER, VaultFolderRow
from knotwork.vault.nofollow import sync

if TYPE_CHECKING:  # a journal replay or a folder check need not load the Neo4j driver
    from knotwork.graph.store import GraphStore


def folder_id(folder: Path) -> tuple[int, int] | None:
    """A folder's identity (device, inode): another once it was deleted and made again, or
    replaced; None while it is missing."""
    try:
        st = os.stat(folder)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def folder_key(folder: Path) -> str | None:
    """``folder_id`` as text ("device:inode"), as a watcher's lease records the folder it
    follows; None while the folder is missing."""
    ident = folder_id(folder)
    return f"{ident[0]}:{ident[1]}" if ident else None


def other_than_recorded(path: str, ident: str | None, was: VaultFolderRow) -> str | None:
    """The folder a vault was last synced from (``was``, as recorded) when the folder at
    ``path`` (resolved) with identity ``ident`` is not it, else None: none recorded yet, or
    the same path, or the same identity (the same folder mounted at another path, compose's
    /vault, or moved whole, keeps its identity; one made again at the path keeps the path)."""
    if was["folder"] is None:
        return None
    if path == was["folder"] or (ident is not None and ident == was["folder_id"]):
        return None
    return str(was["folder"])


async def recorded_folder(store: GraphStore, vault: str) -> VaultFolderRow:
    """The folder ``vault``'s notes were last synced from, as the sync recorded it (both None
    before any sync recorded one)."""
    [row] = await store.read(VAULT_FOLDER, vault=vault)
    return row


async def other_folder(store: GraphStore, vault: str, root: Path) -> str | None:
    """``other_than_recorded`` for the folder ``root``: the folder ``vault`` was last synced
    from when ``root`` is not it, else None. Verify and the REST and MCP writes ask it."""
    was = await recorded_folder(store, vault)
    if was["folder"] is None:  # nothing to compare with: the folder is not even looked at
        return None
    path, ident = await asyncio.to_thread(lambda: (str(root.resolve()), folder_key(root)))
    return other_than_recorded(path, ident, was)


EMPTY = "is empty"

# How an empty vault folder of a vault the graph still holds is confirmed gone for good:
# the sync, the watcher, doctor and the REST writes all say it so.
GONE_FOR_GOOD = (
    "If the notes are gone for good, put any file in the folder (e.g. an empty .keep): the "
    "next sync, or the watcher, then deletes their notes."
)


def empty_while_held(held: int, vault: str) -> str:
    """What is said of an empty vault folder while the graph holds ``held`` notes of it: an
    unmounted drive's mount point, which nothing may take for a vault whose notes all went."""
    return f"is empty while the graph holds {held} notes of vault '{vault}' (an unmounted drive?)"


def folder_unseen(root: Path) -> str | None:
    """Why the vault folder shows nothing: "does not exist", "is not a folder", "cannot be
    listed (…)", or ``EMPTY``; None when it holds something. An empty folder is a drive's
    mount point with the drive away, or a vault whose last note was deleted: the caller
    tells them apart by what the graph holds. Either way nothing is taken for gone on it."""
    try:
        if not root.is_dir():
            return "is not a folder" if root.exists() else "does not exist"
        return EMPTY if next(root.iterdir(), None) is None else None
    except OSError as exc:
        return f"cannot be listed ({exc.strerror or exc})"


def sync_folder(folder: Path) -> None:
    """Flush a folder's entries to the disk (a file replaced, created or removed in it): the
    file's own fsync does not keep its new name through a power cut. Skipped where the system
    cannot open or flush a folder."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        sync(fd)
    finally:
        os.close(fd)
