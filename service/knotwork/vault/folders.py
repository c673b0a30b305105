"""The vault folder and the folders in it as the file system has them: a folder's identity
(another once deleted and made again), whether it is another folder than the one a vault was
synced from (and whether a sync may take it for the vault's, from the notes it holds), why the
vault folder shows nothing, and flushing a folder's entries to the disk. Nothing here reads a
note.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from shlex import quote
from typing import TYPE_CHECKING, Any

from knotwork.errors import VaultFolderError
from knotwork.graph.queries.writes import VAULT_FOLDER, VaultFolderRow
from knotwork.plural import counted
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


def led_elsewhere(path: Path, root: Path) -> bool:
    """Whether the vault ``path`` (a symbolic link, or under one) now leads to a folder other
    than ``root``, the one it was resolved to. Leading nowhere (re-pointed to a folder not made
    yet) it is not: the watcher goes on following ``root`` then (watch/following.py)."""
    if path == root:
        return False
    now = folder_id(path)
    return now is not None and now != folder_id(root)


def folder_key(folder: Path) -> str | None:
    """``folder_id`` as text ("device:inode"), as a watcher's lease records the folder it
    follows; None while the folder is missing."""
    ident = folder_id(folder)
    return f"{ident[0]}:{ident[1]}" if ident else None


def follows(row: Mapping[str, Any], root: Path) -> bool:
    """Whether a watching holder follows the vault folder ``root``: the same folder (device
    and inode), wherever it is mounted (containers mount theirs at /vault), or, when either
    side cannot say its identity, the same path. A holder that does not say which folder
    (from before watchers said it) is trusted. Identity first, unlike the vault's own folder
    (``other_than_recorded``, path or identity): two containers each mount a folder
    at /vault, so a watcher's path alone says nothing; the vault's recorded folder made again
    at its path is still where its notes are written."""
    folder, ident = row.get("folder"), row.get("folder_id")
    if folder is None and ident is None:
        return True
    here = folder_key(root)
    if ident is not None and here is not None:  # two containers' /vault may be two folders
        return bool(ident == here)
    return bool(folder == str(root.resolve()))


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


@dataclass(frozen=True)
class AnotherFolder:
    """Why a sync refuses a folder as its vault's: the vault's notes were synced from another
    folder, and this one holds too few of them. A sync raises it (VaultFolderError), doctor
    and ``/health`` say it before a sync or a watcher runs into it."""

    vault: str
    was: str  # the folder the vault was last synced from
    path: str  # this folder, resolved
    notes: int  # the notes the graph holds of the vault (placeholders aside)
    held: int  # those this folder holds, each at its path with its content

    @property
    def replaced(self) -> bool:
        """The folder at the recorded path was replaced (deleted and made again, another
        mounted there): one path, two folders, not two paths."""
        return self.was == self.path

    @property
    def reason(self) -> str:
        if self.replaced:
            return (
                f"the vault folder {self.path} was replaced by one holding {self.held} of the "
                f"{counted(self.notes, 'note')} of vault '{self.vault}' (the same path and "
                "content), and a sync of it would overwrite or delete the others"
            )
        return (
            f"vault '{self.vault}' holds {counted(self.notes, 'note')} synced from {self.was}; "
            f"this folder, {self.path}, holds {self.held} of them (the same path and content), and "
            "a sync of it would overwrite or delete the others"
        )

    @property
    def fix(self) -> str:
        # Said of a folder replaced in place, a copy or restore may still be filling it: run
        # now, --new-folder would delete every note not yet copied.
        once = "once the folder holds what it should, " if self.replaced else ""
        return (
            "for a second vault, set another KNOTWORK_VAULT_NAME; if this folder now holds "
            f"vault '{self.vault}', {once}run `knotwork ingest {self.path} --new-folder` once"
        )

    @property
    def refusal(self) -> str:
        """As a sync refuses the folder (VaultFolderError), the fix after."""
        return f"{self.reason}, so nothing was changed. {self.fix[0].upper()}{self.fix[1:]}."

    def through_link(self, path: Path, was: Path) -> str:
        """The refusal of the folder a vault ``path`` that is a symbolic link (or under one)
        was re-pointed to under a running watcher (from ``was``): the path and both folders
        named, and the ways out."""
        back = f"so that it leads to {was}"
        if path.is_symlink():  # quoted for a shell: a folder's name may hold a space
            back = f"`ln -sfn {quote(str(was))} {quote(str(path))}`"
        return (
            f"the vault path {path} now points to {self.path} (was {was}), which holds "
            f"{self.held} of the {counted(self.notes, 'note')} of vault '{self.vault}' (the same "
            "path and content), and a sync of it would overwrite or delete the others, so "
            f"nothing was changed. Point it back ({back}) and start the watcher again; for a "
            f"second vault, set another KNOTWORK_VAULT_NAME; if {self.path} now holds vault "
            f"'{self.vault}', run `knotwork ingest {quote(str(path))} --new-folder` once"
        )


class AnotherFolderError(VaultFolderError):
    """A sync's refusal of another folder (``AnotherFolder.refusal``), its judgement kept: a
    watcher that followed a re-pointed symbolic link says it as such (``through_link``)."""

    def __init__(self, another: AnotherFolder) -> None:
        super().__init__(another.refusal)
        self.another = another


@dataclass(frozen=True)
class VaultFolders:
    """A sync's folder beside the one its vault was last synced from."""

    path: str  # the sync's folder, resolved
    ident: str | None  # its identity (device:inode)
    was: VaultFolderRow  # the folder the vault was last synced from, as recorded

    @property
    def recorded(self) -> bool:
        """Whether it is the folder the last sync read: the same path and identity."""
        return (self.was["folder"], self.was["folder_id"]) == (self.path, self.ident)

    def another(
        self, vault: str, stored: Mapping[str, str | None], hashes: Mapping[str, str]
    ) -> AnotherFolder | None:
        """Why a sync must not take the notes the graph holds (``stored``: path → content
        hash) for deleted, given the folder's files (``hashes``, those read); None when the
        folder is the vault's. It is when it is the one the last sync read, when none was
        recorded (a first sync, a graph written before folders were), or when it holds at
        least half of the notes, each at its path with its content: moved, mounted
        elsewhere, made again. Neither a path nor an inode, which a new folder may reuse at
        once, tells that alone, nor do paths: two vaults made from one template share most of
        theirs. Refused: a second vault under the default name (compose mounts any vault at
        /vault), a subfolder, another drive at the mount point, a typo."""
        if self.recorded or self.was["folder"] is None:
            return None
        notes = {p: h for p, h in stored.items() if h is not None}  # a placeholder has no file
        held = sum(hashes.get(p) == h for p, h in notes.items())
        if not notes or 2 * held >= len(notes):
            return None
        return AnotherFolder(vault, str(self.was["folder"]), self.path, len(notes), held)


async def vault_folders(store: GraphStore, vault: str, root: Path) -> VaultFolders:
    """The folder ``root`` beside the one ``vault`` was last synced from, as a sync judges it
    (``VaultFolders.another``)."""
    path, ident = await asyncio.to_thread(lambda: (str(root.resolve()), folder_key(root)))
    return VaultFolders(path, ident, await recorded_folder(store, vault))


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
    return (
        f"is empty while the graph holds {counted(held, 'note')} of vault '{vault}' (an "
        "unmounted drive?)"
    )


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


def gone_from(root: Path, listed: set[str]) -> set[str]:
    """Those of the paths listed but not read (files, or folders not walked) that are no
    longer there at all: the folder changed while a sync read it (ingest/plan.py)."""
    return {path for path in listed if not os.path.lexists(root / path)}


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
