"""The observer of the vault folder the watcher follows: started before the first rescan, kept
alive (one that stopped is started again), and renewed when the folder is deleted and made
again or replaced, or the vault path (a symbolic link) re-pointed to another folder, a rescan
each time finding what the old one missed. The status the lease carries names the folder
followed (vault/folders.py ``follows``: a REST write is left to the watcher only by its
folder)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from watchdog.observers.api import BaseObserver

from knotwork.vault.folders import folder_id, folder_key
from knotwork.watch.apply import Applier
from knotwork.watch.queue import deaf, start_observer

log = logging.getLogger("knotwork.watch.watcher")  # said as the watcher says its own


class Following:
    """The observer of ``applier``'s vault folder, and that folder's identity; both change
    when the observer is restarted or the folder replaced."""

    def __init__(self, loop: asyncio.AbstractEventLoop, applier: Applier, polling: bool) -> None:
        self.loop, self.applier, self.polling = loop, applier, polling
        self.watched = self._followed(folder_id(applier.root))  # before the rescan: a swap counts
        self.observer = self._start()

    def _start(self) -> BaseObserver:
        applier = self.applier
        return start_observer(applier.root, applier.gate(self.loop), self.polling, applier.status)

    def keep_alive(self) -> None:
        """An observer that stopped is started again, and a rescan finds what it missed."""
        if self.observer.is_alive():
            return
        try:
            self.observer = self._start()
        except OSError as exc:  # the folder gone at that moment: tried next pass
            self.applier.status.warning = f"the file observer stopped; not restarted: {exc}"
        else:
            self.applier.status.warning = "the file observer stopped; restarted after a rescan"
            self.applier.ask_rescan()

    def look_at_folder(self) -> None:
        """Looked at every second: a vault folder deleted and made again, or replaced, gets a
        new observer and a rescan once its events pause (``Applier.folder_replaced``)."""
        self._look_at_path()
        now_id = folder_id(self.applier.root)
        self.applier.folder.remember_full(now_id)
        if now_id is not None and (now_id != self.watched or deaf(self.observer)):
            # The vault folder was deleted and made again, or replaced: the old
            # observer watches nothing (or the old folder) from now on.
            try:
                renewed = self._start()
            except OSError as exc:  # gone again meanwhile: looked at next second
                log.warning("the vault folder cannot be followed yet: %s", exc)
            else:
                log.warning(
                    "the vault folder was replaced; following the new one, read once its "
                    "events pause"
                )
                self.stop()
                self.observer, self.watched = renewed, self._followed(now_id)
                # Judged once a copy into it ends, not half-filled (made again, it may have
                # the old one's inode number: deaf tells it then).
                self.applier.folder_replaced()

    def _look_at_path(self) -> None:
        """The vault path (a symbolic link, or under one) re-pointed to another folder
        (``ln -sfn release-2 vault``) is the folder replaced by another: followed, and judged
        once its events pause. A link to nothing (yet) changes nothing."""
        applier = self.applier
        now = target(applier.vault_path)
        if now is None or now == applier.root or folder_id(now) is None:
            return
        try:
            renewed = start_observer(now, applier.gate(self.loop), self.polling, applier.status)
        except OSError as exc:  # gone again meanwhile: looked at next second
            log.warning("the vault folder cannot be followed yet: %s", exc)
            return
        log.warning(
            "the vault path %s now points to %s (was %s); following it, read once its events pause",
            applier.vault_path,
            now,
            applier.root,
        )
        self.stop()
        applier.follow_target(now)
        self.observer, self.watched = renewed, self._followed(folder_id(now))
        applier.folder_replaced()

    def stop(self) -> None:
        """Stop the observer's thread and wait for it (5 s at most)."""
        self.observer.stop()
        self.observer.join(timeout=5)

    def _followed(self, ident: tuple[int, int] | None) -> tuple[int, int] | None:
        """The folder now followed, said in the status the lease carries."""
        self.applier.status.folder_id = folder_key(self.applier.root)
        self.applier.folder.followed = ident
        return ident


def target(path: Path | None) -> Path | None:
    """The folder the vault path leads to now, its links followed; None when it cannot say
    (no path, a loop of links)."""
    if path is None:
        return None
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a loop of links: RuntimeError before Python 3.13
        return None
