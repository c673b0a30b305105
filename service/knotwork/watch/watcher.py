"""The watcher: the graph follows the vault folder live, and never drifts.

watchdog's events only say *which paths* to look at; the file system stays the truth. Each path
waits for a quiet period (debounce) and is then ingested as it is on disk: present → upsert
(unchanged content writes nothing), absent → delete, moved → rename (no re-embedding). An editor's
atomic save (write a temp file, rename it over the note) is thus one modification. At start-up,
after an observer error, when events overflow (more than ``watch_queue_max`` waiting, or the
kernel's inotify queue overflowing), and every ``watch_rescan_s``, a full sync reconciles whatever
events were missed. One lease in Neo4j keeps a second writer out (``lease.holding``), so
``knotwork retry`` cannot run beside the watcher: every ``RETRY_PENDING_S`` it finishes the chunks
left pending while a model was down itself. Symbolic links are never followed: a linked note, or
a note under a linked folder, is treated as absent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from pathlib import Path

from watchdog.events import FileSystemEvent
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserver

from knotwork import background
from knotwork.errors import KnotworkError
from knotwork.graph.lease import Lease, holding
from knotwork.ingest import rehearse
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import Progress, SyncReport, sync_vault
from knotwork.vault.files import is_note, list_notes, symlink_on_path
from knotwork.watch.queue import (
    IGNORED_EVENTS,
    INOTIFY_LOGGER,
    EventGate,
    OverflowLog,
    WatchStatus,
)

log = logging.getLogger(__name__)

RETRY_PENDING_S = 30.0  # how often the chunks a model left pending are tried again


@dataclass
class _Pending:
    due: float
    seen: float
    moved_from: str | None = None


class VaultWatcher:
    def __init__(self, ingestor: Ingestor, lease: Lease) -> None:
        if ingestor.root is None:
            raise KnotworkError("no vault folder: set KNOTWORK_VAULT_PATH or pass a path")
        self.ingestor, self.lease = ingestor, lease
        self.last_report: SyncReport | None = None  # the last rescan's, for a summary
        self.root = ingestor.root.resolve()
        settings = ingestor.settings
        self.debounce = settings.watch_debounce_ms / 1000
        self.rescan_s = settings.watch_rescan_s
        self.polling = settings.watch_polling
        self.queue_max = settings.watch_queue_max
        self.retry_s = RETRY_PENDING_S
        self.status = WatchStatus(mode="polling" if self.polling else "inotify")
        self.pending: dict[str, _Pending] = {}
        self._handler: EventGate | None = None
        self._dropping = False  # after an overflow, until the rescan starts
        self._rescanning = False
        self._applying = False  # a change taken off ``pending`` is being written
        self._rescan = asyncio.Event()
        self._stop = asyncio.Event()

    # -- events (on the loop) -------------------------------------------------------------

    def _rel(self, raw: bytes | str) -> str | None:
        path = Path(raw.decode() if isinstance(raw, bytes) else raw)
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return None  # outside the vault

    def _mark(self, rel: str, moved_from: str | None = None) -> None:
        if self._dropping:
            return
        now = time.monotonic()
        old = self.pending.get(rel)
        self.pending[rel] = _Pending(
            now + self.debounce,
            old.seen if old else now,
            moved_from or (old.moved_from if old else None),
        )
        if len(self.pending) > self.queue_max:
            self._overflow(f"more than {self.queue_max} paths waiting to be ingested")

    def _overflow(self, reason: str) -> None:
        """Too many changes to follow one by one: drop them and reconcile the whole vault."""
        if self._dropping:
            return
        dropped = len(self.pending)
        self.pending.clear()
        self._dropping = True
        self.status.overflows += 1
        self.status.last_overflow = (
            f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}: {reason}; "
            f"{dropped} pending paths dropped, the whole vault rescanned"
        )
        log.warning(
            "event queue overflow: %s; dropping %d pending paths and rescanning the "
            "whole vault (KNOTWORK_WATCH_QUEUE_MAX=%d)",
            reason,
            dropped,
            self.queue_max,
        )
        self._rescan.set()

    def _resume(self) -> None:
        """Follow events again; called as a rescan starts, so it sees what was dropped."""
        self._dropping = False
        if self._handler is not None:
            self._handler.resume()

    def queue_length(self) -> int:
        return len(self.pending) + (self._handler.inflight if self._handler else 0)

    def on_event(self, event: FileSystemEvent) -> None:
        if event.event_type in IGNORED_EVENTS or self._dropping:
            return
        self.status.events += 1
        self.status.last_event_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        src = self._rel(event.src_path)
        dest = self._rel(event.dest_path) if event.event_type == "moved" else None
        if event.is_directory:
            self._on_directory(event.event_type, src, dest)
            return
        if event.event_type == "moved":
            if dest and is_note(dest):
                self._mark(dest, src if src and is_note(src) else None)
            if src and is_note(src):
                self._mark(src)
        elif src and is_note(src):
            self._mark(src)

    def _on_directory(self, kind: str, src: str | None, dest: str | None) -> None:
        """A folder moved, appeared or vanished: every note below it is looked at."""
        if kind == "moved" and dest is not None:
            for rel in list_notes(self.root / dest):
                new = f"{dest}/{rel}"
                if is_note(new):
                    self._mark(new, f"{src}/{rel}" if src else None)
                    if src:
                        self._mark(f"{src}/{rel}")
        elif kind == "created" and src:
            for rel in list_notes(self.root / src):
                self._mark(f"{src}/{rel}")
        if kind in ("deleted", "moved") and src:
            self._rescan.set()  # which notes lived there is known to the graph, not the disk

    # -- processing ---------------------------------------------------------------------------

    async def _process_due(self) -> None:
        now = time.monotonic()
        due = sorted(
            (p for p, v in self.pending.items() if v.due <= now),
            key=lambda p: self.pending[p].moved_from is None,
        )  # moves first
        consumed: set[str] = set()
        self._applying = True
        try:
            for rel in due:
                item = self.pending.pop(rel, None)
                if item is None or rel in consumed:
                    continue
                try:
                    await self._apply(rel, item, consumed)
                    self.status.processed += 1
                    self.status.lag_ms = (time.monotonic() - item.seen) * 1000
                except KnotworkError as exc:
                    self.status.errors += 1
                    log.warning("%s: %s", rel, exc)
        finally:
            self._applying = False

    def _is_note_file(self, rel: str) -> bool:
        """A regular note file, reached without a symbolic link: a link (or a path through a
        linked folder) counts as absent, so the graph never records a link's name with its
        target's text — the policy ``scan_notes`` applies to a full sync."""
        if symlink_on_path(self.root, rel) is not None:
            log.info("%s: a symbolic link (or under one); not ingested", rel)
            return False
        return (self.root / rel).is_file()

    async def _apply(self, rel: str, item: _Pending, consumed: set[str]) -> None:
        source = item.moved_from
        # The notes' locks: a REST write in this process never interleaves with this one.
        async with self.ingestor.core.note_locks.hold(rel, *([source] if source else [])):
            exists = self._is_note_file(rel)
            if exists and source and not (self.root / source).exists():
                consumed.add(source)
                self.pending.pop(source, None)
                await self.ingestor.rename(source, rel)
            elif exists:
                await self.ingestor.upsert_path(rel)
            else:
                await self.ingestor.delete(rel)

    async def rescan(self, progress: Progress | None = None) -> None:
        self.status.rescans += 1
        self._rescanning = True
        try:
            report = await sync_vault(self.ingestor, progress)
        finally:
            self._rescanning = False
        self.last_report = report
        for error in report.errors:
            log.warning("%s", error)

    async def retry_pending(self) -> None:
        """What ``knotwork retry`` does, under this watcher's lease, once the model answers."""
        try:
            embedded, extracted = await self.ingestor.retry_pending(ask_again=False)
        except KnotworkError as exc:
            log.warning("pending model work not finished yet: %s", exc)
            return
        if embedded or extracted:
            log.info("pending model work done: %d embedded, %d extracted", embedded, extracted)

    def _observer(self, loop: asyncio.AbstractEventLoop) -> BaseObserver:
        handler = EventGate(loop, self.on_event, self._overflow, self.queue_max)
        self._handler = handler
        observer: BaseObserver = PollingObserver(timeout=1) if self.polling else Observer()
        observer.schedule(handler, str(self.root), recursive=True)
        try:
            observer.start()
        except OSError as exc:  # e.g. the inotify watch limit
            self.status.mode, self.status.warning = (
                "polling",
                (
                    f"inotify unavailable ({exc}); polling instead, changes show up slower. Raise "
                    "fs.inotify.max_user_watches to fix it."
                ),
            )
            log.warning("%s", self.status.warning)
            observer = PollingObserver(timeout=1)
            observer.schedule(handler, str(self.root), recursive=True)
            observer.start()
        return observer

    async def run(
        self, progress: Progress | None = None, ready: asyncio.Event | None = None
    ) -> None:
        """Take the lease, reconcile, then follow events until ``stop()``; LeaseLostError
        when a heartbeat finds the lease taken by another writer."""
        async with holding(self.lease, lambda: self.status.report(self.queue_length())):
            await self._follow(progress, ready)

    async def _follow(self, progress: Progress | None, ready: asyncio.Event | None) -> None:
        loop = asyncio.get_running_loop()
        overflow_log = OverflowLog(loop, self._overflow)
        logging.getLogger(INOTIFY_LOGGER).addHandler(overflow_log)
        observer = self._observer(loop)  # before the rescan, so no change slips between
        rehearsal: asyncio.Task[None] | None = None
        try:
            await self.rescan(progress)
            rehearsal = rehearse.start(self.ingestor.core)  # the first edit plans none
            if ready:
                ready.set()
            last_rescan = last_retry = time.monotonic()
            while not self._stop.is_set():
                if not observer.is_alive():
                    self.status.warning = "the file observer stopped; restarted after a rescan"
                    observer = self._observer(loop)
                    self._rescan.set()
                if self._rescan.is_set() or (
                    self.rescan_s and time.monotonic() - last_rescan > self.rescan_s
                ):
                    self._rescan.clear()
                    await self._process_due()
                    self._resume()
                    await self.rescan()
                    last_rescan = time.monotonic()
                await self._process_due()
                if time.monotonic() - last_retry > self.retry_s:
                    await self.retry_pending()
                    last_retry = time.monotonic()
                await _sleep_or(self._stop, 0.05)
        finally:
            # The observer first: a failure the rehearsal raises must not leave its thread on.
            observer.stop()
            observer.join(timeout=5)
            logging.getLogger(INOTIFY_LOGGER).removeHandler(overflow_log)
            self._stop.set()
            await background.stop(rehearsal)

    def stop(self) -> None:
        self._stop.set()

    @property
    def idle(self) -> bool:
        """Nothing waiting or being written, no rescan due or under way."""
        return not (
            self.pending
            or self._applying
            or self._rescan.is_set()
            or self._dropping
            or self._rescanning
        )


async def _sleep_or(event: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), timeout=seconds)
