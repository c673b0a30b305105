"""The watcher's full rescans, which reconcile what events missed: after a folder's events
pause, an overflow, a failed one's retry, and the vault folder replaced — judged only once
its events pause (a copy into it may run long: read half-filled, it would be refused as
another vault's, or taken for the vault with every note not yet copied deleted); nothing is
written from it meanwhile. One that fails (Neo4j down, the folder unmounted) is said once
and tried again; one that finds another vault's folder, or a graph re-embedded, stops the
watcher. Which paths wait is watch/events.py's part, writing them watch/apply.py's."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

from knotwork.errors import (
    GraphTransientError,
    GraphUnavailableError,
    KnotworkError,
    ManifestMismatchError,
    VaultFolderError,
    VaultUnavailableError,
)
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import Progress, SyncReport, sync_vault
from knotwork.outage import Outage
from knotwork.vault.folders import AnotherFolderError
from knotwork.watch.events import PathEvents
from knotwork.watch.folder import FolderView
from knotwork.watch.held import quiet_s
from knotwork.watch.queue import WatchStatus
from knotwork.watch.said import say_rescan

log = logging.getLogger("knotwork.watch.apply")  # said as the watcher's writes say theirs


class Rescans(PathEvents):
    """The rescans of one vault folder synced through ``ingestor`` (watch/apply.py's
    ``Applier`` writes the changes between them)."""

    def __init__(self, ingestor: Ingestor, root: Path, status: WatchStatus) -> None:
        settings = ingestor.settings
        super().__init__(root, settings.watch_debounce_ms / 1000, settings.watch_queue_max, status)
        # The vault path as configured (a symbolic link, maybe): looked at each second for a
        # re-point; every read (a change's, a rescan's) is of the folder followed, ``root``,
        # so a change heard there is never written as the folder the link now leads to has it.
        self.vault_path, ingestor.root = ingestor.root, root
        self.ingestor = ingestor
        self.last_report: SyncReport | None = None  # the last rescan's, for a summary
        self._rescanning = False
        self._rescan_retry_at: float | None = None  # a failed rescan is tried again then
        self._rescan_failed = False  # the status warning is a failed rescan's
        self._rescan_bugs = 0  # rescans failed in a row for an unexpected reason
        self.outage = Outage("Neo4j")  # said once, not once a try
        self.folder_outage = Outage("the vault folder")
        self.folder = FolderView(ingestor, root)
        # The vault path (a symbolic link) re-pointed: (the folder it led to, the new one)
        # until a rescan judges the new one (``follow_target``).
        self.link_moved: tuple[Path, Path] | None = None

    @property
    def graph_retry_s(self) -> float:
        """How long a rescan (or change) that failed on the graph waits to be tried again."""
        raise NotImplementedError

    async def _process_due(self) -> None:
        """Apply every change now due (``Applier``'s)."""
        raise NotImplementedError

    async def rescan(self, progress: Progress | None = None) -> None:
        """A full sync. Its warnings and errors logged each once: not the start-up sync's when
        a caller shows its progress (``knotwork watch``: its summary of ``last_report`` has
        them), never a note's only repeating a model's trouble (said by the trouble's line)."""
        startup = self.last_report is None  # a summary shows it when there is a progress bar
        summarised = progress is not None and startup
        self.status.rescans += 1
        self._rescanning = True
        try:
            report = await sync_vault(self.ingestor, progress, path=self.vault_path)
        except VaultFolderError as exc:
            raise self._link_refused(exc) from exc
        finally:
            self._rescanning = False
        self.last_report, self.link_moved = report, None
        for said in report.shared:
            log.debug("%s", said)
        for said in () if summarised else (*report.own_warnings, *report.errors):
            log.warning("%s", said)
        say_rescan(report, startup)  # what it wrote, moved and deleted
        if report.kept_gone:  # the folder changed while read: again once its events pause
            self._rescan_when_quiet()

    async def _rescan_now(self) -> None:
        """What is due first, moves waiting too, then the full sync (or its retry). Moves still
        waiting then (Neo4j refused them) put the sync off: it would take them and find moves
        by content alone, and a note moved then edited would be made anew, its old path deleted.
        A sync that fails puts back what waited, merged with what came meanwhile, and tried
        first as it is tried again (a note deleted while the folder was away)."""
        self._look_if_replaced()
        if self.judging and time.monotonic() - self.event_at < quiet_s(self.debounce):
            self._put_off()  # a replaced folder still being filled: judged once it is quiet
            return
        self.rescan_begins()
        await self._process_due()
        if any(item.moved_from is not None for item in self.pending.values()):
            self._rescan_retry_at = time.monotonic() + self.graph_retry_s
            return
        waiting = self._resume()
        try:
            done = await self._rescan_or_retry()
        except asyncio.CancelledError:  # a stop: what waited is the stop's to apply
            for rel, item in waiting.items():
                self.put_back(rel, item, item.due, item.attempts, item.there)
            raise
        if not done:  # failed or put off: what waited waits again, tried just before the
            retry_at = self._rescan_retry_at or 0.0  # rescan is, not after it
            for rel, item in waiting.items():
                self.put_back(rel, item, max(item.due, retry_at), item.attempts, item.there)

    def folder_replaced(self) -> None:
        """The vault folder was deleted and made again, or replaced: nothing is written until
        a rescan judges it, once its events pause (a copy or restore into it may take long:
        judged half-filled, it would be refused as another vault's, or taken for the vault
        with the notes not yet copied deleted); an empty one, once a note comes into it."""
        self.judging = self.folder.replaced()
        self._rescan_when_quiet()

    def follow_target(self, root: Path) -> None:
        """The vault path (a symbolic link, or under one) now leads to the folder ``root``:
        followed from now on, as a folder replaced at the path is (the caller asks
        ``folder_replaced``); a refusal of it names the link and both folders."""
        if root == self.root:
            return
        was = self.link_moved[0] if self.link_moved else self.root  # the folder last judged
        self.link_moved = (was, root)
        self.root = self.folder.root = self._created.root = self.ingestor.root = root
        self.status.folder = str(root)

    def _link_refused(self, exc: VaultFolderError) -> VaultFolderError:
        """A sync's refusal of the folder the vault path was re-pointed to, said as such."""
        if not isinstance(exc, AnotherFolderError) or not self.link_moved or not self.vault_path:
            return exc
        said = exc.another.through_link(self.vault_path, self.link_moved[0])
        return VaultFolderError(f"{said}.")

    def _look_if_replaced(self) -> None:
        """Judged from now on: a folder replaced, not yet seen so (looked at each second), or
        an empty one a note comes into (``FolderView.to_judge``)."""
        if not self.judging and self.folder.to_judge(any(i.there for i in self.pending.values())):
            self.judging = True
            self._rescan_when_quiet()

    def _put_off(self) -> None:
        """The rescan that judges a replaced folder waits again for its events to pause."""
        self._rescan.clear()
        self._rescan_retry_at = None
        self._rescan_when_quiet()

    async def _rescan_or_retry(self) -> bool:
        """A rescan while following, True once it ran: one that fails (Neo4j down, the vault
        folder unmounted) is logged and tried again shortly; the watcher goes on. The folder
        now holding another vault's notes (VaultFolderError) stops it: its events would write
        them in this one; so does a graph re-embedded with another model
        (ManifestMismatchError). A replaced folder whose events came meanwhile is judged
        again once they pause: a copy into it is not over."""
        self._rescan_retry_at = None
        began = time.monotonic()
        try:
            await self.rescan()
            self.judging = self.folder.mount_point = False
            self.outage.ended()
            self.folder_outage.ended()
            if self._rescan_failed:  # the warning it left is over
                self.status.warning, self._rescan_failed = None, False
        except VaultFolderError:
            if self.judging and self.event_at > began - quiet_s(self.debounce):
                log.info("the replaced vault folder is still changing; judged once it is quiet")
                self._put_off()
                return False
            raise  # another vault's: stop, said why
        except ManifestMismatchError:  # re-embedded under another model
            raise  # stop, said why
        except Exception as exc:  # Neo4j away, the folder unmounted, or a bug: never fatal
            wait = self.graph_retry_s
            if not isinstance(exc, KnotworkError):  # a bug: backs off, to 5 min
                log.exception("rescan failed")
                self._rescan_bugs += 1
                wait = min(self.graph_retry_s * 2**self._rescan_bugs, 300.0)
            self._rescan_retry_at = time.monotonic() + wait
            self._rescan_failed = True
            self.status.warning = f"rescan failed, tried again in {wait:.0f} s: {exc}"
            if isinstance(exc, GraphUnavailableError) and not isinstance(exc, GraphTransientError):
                self.outage.failed(exc, "a rescan waits")
            elif isinstance(exc, VaultUnavailableError):  # an unmounted drive: said once
                self.folder_outage.failed(exc, "a rescan waits")
            else:
                log.warning("%s", self.status.warning)
            return False
        self._rescan_bugs = 0
        return True
