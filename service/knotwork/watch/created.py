"""The notes below folders that appeared, listed off the event loop and once per burst.

A folder made with folders inside (unpacked, copied, ``mkdir -p``) comes as one created-folder
event per folder, the nested ones too. Listed on the loop for each, a deep chain cost a
listing of every level's subtree (quadratic) while the loop stood still: no event read, no
lease renewed, Ctrl-C unheard. Here a folder whose listing is still to start covers every
folder below it, and the listings run in a thread; the notes found are handed to the loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from knotwork.vault.files import is_note, list_notes


class CreatedFolders:
    """Folders to list for the notes below them; ``found`` gets each of those notes, on the
    loop."""

    def __init__(self, root: Path, found: Callable[[str], None]) -> None:
        self.root, self.found = root, found
        self._waiting: set[str] = set()  # folders (vault-relative) no listing has taken yet
        self._task: asyncio.Task[None] | None = None

    def add(self, folder: str) -> None:
        """List ``folder`` soon, unless a listing still to start covers it already."""
        if self._covered(folder):
            return
        self._waiting.add(folder)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._list())

    def _covered(self, folder: str) -> bool:
        """Whether ``folder`` or a folder above it waits: the cheaper of two ways to ask."""
        if folder in self._waiting:
            return True
        if len(self._waiting) <= folder.count("/"):
            return any(folder.startswith(f"{w}/") for w in self._waiting)
        at = folder.find("/")
        while at > 0:
            if folder[:at] in self._waiting:
                return True
            at = folder.find("/", at + 1)
        return False

    async def listed(self) -> None:
        """Wait for the listing under way (and the folders that came meanwhile): a stop
        applies the notes of a folder copied in just before it, not the next start's rescan.
        Cancelled (a stop's time up), the listing itself is not."""
        while self._task is not None and self.busy:
            await asyncio.wait({self._task})

    @property
    def busy(self) -> bool:
        """Whether a listing is under way."""
        return self._task is not None and not self._task.done()

    def cancel(self) -> asyncio.Task[None] | None:
        """The watcher stops: the listing under way cancelled (its task returned, for the
        caller to wait on) and the folders still to list dropped — the next follow's rescan
        finds their notes; kept, they would hide the folders below them from a later add."""
        self._waiting.clear()
        if self._task is not None:
            self._task.cancel()
        return self._task

    async def _list(self) -> None:
        while self._waiting:  # folders that came while a listing ran: listed next
            folders, self._waiting = self._waiting, set()
            for rel in await asyncio.to_thread(notes_below, self.root, folders):
                self.found(rel)


def notes_below(root: Path, folders: set[str]) -> list[str]:
    """The notes (vault-relative paths) below ``folders``, each folder listed once: one below
    another is in its listing. A folder inside an ignored one (a package unpacked in
    node_modules, one moved into .trash) holds none: each note's whole path is checked. A link
    to a folder is never followed, as a full sync does not follow it."""
    notes: list[str] = []
    done: list[str] = []
    for folder in sorted(folders, key=lambda f: f.split("/")):  # a folder before those in it
        if any(folder.startswith(f"{d}/") for d in done[-1:]) or _link(root / folder):
            continue
        done.append(folder)
        notes += [new for rel in list_notes(root / folder) if is_note(new := f"{folder}/{rel}")]
    return notes


def _link(path: Path) -> bool:
    """Whether ``path`` is a link, or not to be listed at all: gone since, or past PATH_MAX."""
    try:
        return path.is_symlink()
    except OSError:
        return True
