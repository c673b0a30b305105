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
a note under a linked folder, is treated as absent. A change or rescan that fails on the graph
(Neo4j down or restarting) waits and is tried again every ``RETRY_GRAPH_S``: none is dropped
and the watcher goes on; one that fails otherwise is tried ``MAX_ATTEMPTS`` times, then left to
a rescan. A move given up still deletes its old path. A vault folder deleted and made again (or
replaced) is followed anew. Which paths wait is watch/events.py's part.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from neo4j.exceptions import Neo4jError
from watchdog.observers.api import BaseObserver

from knotwork import background
from knotwork.errors import (
    ConfigError,
    GraphUnavailableError,
    KnotworkError,
    QueryTimeoutError,
    VaultFolderError,
    VaultUnavailableError,
)
from knotwork.graph.lease import Lease, holding
from knotwork.graph.queries.reads import VAULT_NOTES
from knotwork.ingest import rehearse
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.plan import empty_held
from knotwork.ingest.sync import Progress, SyncReport, sync_vault
from knotwork.vault.files import EMPTY, folder_id, folder_key, folder_unseen, symlink_on_path
from knotwork.vault.write import exists_exactly
from knotwork.watch.events import PathEvents, Pending
from knotwork.watch.outage import Outage
from knotwork.watch.queue import (
    INOTIFY_LOGGER,
    EventGate,
    OverflowLog,
    WatchStatus,
    deaf,
    start_observer,
)

log = logging.getLogger(__name__)

RETRY_PENDING_S = 30.0  # how often the chunks a model left pending are tried again
# A change or rescan that failed on the graph (Neo4j down or restarting) is tried again after
# this long; a change Neo4j refuses otherwise, at most MAX_ATTEMPTS times in all.
RETRY_GRAPH_S = 5.0
MAX_ATTEMPTS = 3
STOP_FLUSH_S = 30.0  # the longest a stop waits for the changes still waiting to be applied
MAX_TRANSIENT = 12  # a transient Neo4j error on the same change: then it is left to a rescan


class VaultWatcher(PathEvents):
    def __init__(self, ingestor: Ingestor, lease: Lease) -> None:
        if ingestor.root is None:
            raise ConfigError("no vault folder: set KNOTWORK_VAULT_PATH or pass a path")
        self.ingestor, self.lease = ingestor, lease
        self.last_report: SyncReport | None = None  # the last rescan's, for a summary
        settings = ingestor.settings
        self.polling = settings.watch_polling
        root = ingestor.root.resolve()
        super().__init__(
            root,
            settings.watch_debounce_ms / 1000,
            settings.watch_queue_max,
            WatchStatus(
                mode="polling" if self.polling else "inotify",
                folder=str(root),
                folder_id=folder_key(root),  # the lease's first status, before _follow
            ),
        )
        self.rescan_s = settings.watch_rescan_s
        self.retry_s = RETRY_PENDING_S
        self._rescanning = False
        self._applying = False  # a change taken off ``pending`` is being written
        self._rescan_retry_at: float | None = None  # a failed rescan is tried again then
        self._rescan_failed = False  # the status warning is a failed rescan's
        self._rescan_bugs = 0  # rescans failed in a row for an unexpected reason
        self.outage = Outage("Neo4j")  # said once, not once a try
        self.folder_outage = Outage("the vault folder")
        self._stop = asyncio.Event()
        self._full_id: tuple[int, int] | None = None  # the folder last seen holding anything
        self._remember_full(folder_id(root))

    # -- processing ---------------------------------------------------------------------------

    async def _process_due(self) -> None:
        now = time.monotonic()
        # A move's old path waits for a move not yet due (an edit of the new path delays it):
        # applied alone it would be a delete, and the move a new note embedded all again.
        sources = {v.moved_from for v in self.pending.values() if v.moved_from and v.due > now}
        due = sorted(
            (p for p, v in self.pending.items() if v.due <= now and p not in sources),
            key=lambda p: self.pending[p].moved_from is None,
        )  # moves first
        consumed: set[str] = set()
        self._applying = True
        try:
            for rel in due:
                if rel in consumed:  # a rename took it; an event since is a new change
                    continue
                item = self.pending.pop(rel, None)
                if item is None:
                    continue
                try:
                    await self._apply(rel, item, consumed)
                    self.folder_outage.ended()
                    self.outage.ended(f"; applying the {len(self.pending)} changes waiting")
                    self.status.processed += 1
                    self.status.lag_ms = (time.monotonic() - item.seen) * 1000
                except (GraphUnavailableError, Neo4jError) as exc:
                    if isinstance(exc, Neo4jError):  # transient ones count, against a higher cap
                        if not exc.is_retryable() or item.attempts + 1 >= MAX_TRANSIENT:
                            self._failed(rel, item, exc)
                            continue
                        item.attempts += 1
                    # Neo4j is down or restarting: this change and the rest wait for it.
                    self._again(rel, item, attempts=item.attempts)
                    waiting = f"{len(self.pending)} changes wait"
                    if isinstance(exc, GraphUnavailableError):
                        self.outage.failed(exc, waiting)
                    else:  # a transient error of a server that answers: said each time
                        log.warning("%s (transient); %s, tried again shortly", exc, waiting)
                    break
                except VaultUnavailableError as exc:  # the folder away: every change waits
                    self._again(rel, item, attempts=item.attempts)
                    self.folder_outage.failed(exc, f"{len(self.pending)} changes wait")
                    break
                except QueryTimeoutError as exc:  # the server's transaction limit: tried again
                    self._failed(rel, item, exc)
                except KnotworkError as exc:  # about the note itself: its next change retries
                    self.status.errors += 1
                    log.warning("%s: %s", rel, exc)
                except Exception as exc:  # a bug or an odd file: logged, tried again, never fatal
                    log.exception("%s: unexpected failure", rel)
                    self._failed(rel, item, exc)
        finally:
            self._applying = False

    def _failed(self, rel: str, item: Pending, exc: BaseException) -> None:
        """A change Neo4j (or the code) refused: tried again, at most MAX_ATTEMPTS times in
        all; then a rescan brings whatever it could not do in step."""
        self.status.errors += 1
        log.warning("%s: %s (try %d)", rel, exc, item.attempts + 1)
        if item.attempts + 1 < MAX_ATTEMPTS:
            self._again(rel, item, attempts=item.attempts + 1)
        else:
            self._rescan_retry_at = time.monotonic() + RETRY_GRAPH_S

    def _again(self, rel: str, item: Pending, *, attempts: int) -> None:
        """Put a change that failed on the graph back, unless a newer one for the path came."""
        due = time.monotonic() + RETRY_GRAPH_S
        newer = self.pending.setdefault(rel, Pending(due, item.seen, item.moved_from, attempts))
        newer.moved_from = newer.moved_from or item.moved_from  # an edit since keeps the move

    def _is_note_file(self, rel: str) -> bool:
        """A regular note file, reached without a symbolic link: a link (or a path through a
        linked folder) counts as absent, so the graph never records a link's name with its
        target's text — the policy ``scan_notes`` applies to a full sync. Exactly this name: on
        a case-insensitive file system ``Foo.md`` renamed ``foo.md`` leaves no ``Foo.md``."""
        if symlink_on_path(self.root, rel) is not None:
            log.info("%s: a symbolic link (or under one); not ingested", rel)
            return False
        return exists_exactly(self.root / rel, self.root)

    async def _apply(self, rel: str, item: Pending, consumed: set[str]) -> None:
        source = item.moved_from
        # The notes' locks: a REST write in this process never interleaves with this one.
        async with self.ingestor.core.note_locks.hold(rel, *([source] if source else [])):
            exists = self._is_note_file(rel)
            # A note missing from a folder that is not there is not known to be deleted.
            if not exists and (away := await self._folder_away()):
                raise VaultUnavailableError(away)  # said as "the vault folder unavailable (…)"
            if exists and source and not exists_exactly(self.root / source, self.root):
                waiting = self.pending.pop(source, None)
                try:
                    await self.ingestor.rename(source, rel)
                except BaseException:
                    # Not moved: the old path waits again (not in this pass), for the move
                    # tried again or, if that is given up, its own delete.
                    now = time.monotonic()
                    self.pending.setdefault(source, waiting or Pending(now, now))
                    consumed.add(source)
                    raise
                consumed.add(source)
                return
            outcome = await (self.ingestor.upsert_path if exists else self.ingestor.delete)(rel)
            for warning in outcome.warnings:  # frontmatter ignored, bytes replaced, …
                log.warning("%s", warning)

    def _remember_full(self, ident: tuple[int, int] | None) -> None:
        """Note the folder's identity (``folder_id``) while it holds anything (at start, then
        every second)."""
        if ident is not None and folder_unseen(self.root) is None:
            self._full_id = ident

    async def _folder_away(self) -> str | None:
        """Why a note the folder no longer shows is not known to be gone, or None: the folder
        cannot be seen, or it is empty, is not the folder last seen holding anything (device
        and inode) and the graph holds notes of it — a drive's mount point with the drive
        away, which a polling observer reports as every note deleted (a sync refuses the same,
        ingest.plan). The watcher follows the empty mount point within a second, so the folder
        followed would not tell. A folder emptied by deleting its notes (the last one through
        the API) is the one last seen full: its deletes apply."""
        unseen = folder_unseen(self.root)
        if unseen != EMPTY:
            return unseen
        if self._full_id is not None and folder_id(self.root) == self._full_id:
            return None
        [row] = await self.ingestor.core.store.read(VAULT_NOTES, vault=self.ingestor.vault)
        held = int(row["notes"])
        return empty_held(held, self.ingestor.vault) if held else None

    async def _say_stopping(self) -> None:
        self.status.stopping = True
        try:
            await self.lease.renew(self.status.report(self.queue_length()))
        except (KnotworkError, Neo4jError) as exc:  # the lease lapses on its own meanwhile
            log.debug("the lease could not say the watcher stops: %s", exc)

    async def _flush(self) -> None:
        """Apply every change waiting, and those whose events arrive meanwhile (a REST write
        answered before the lease said this watcher stops): until a pass finds none new."""
        tried: set[str] = set()  # each path once: one that failed on the graph is left
        while fresh := [p for p in self.pending if p not in tried]:
            for path in fresh:
                self.pending[path].due = 0.0
            tried.update(fresh)
            await self._process_due()
            await asyncio.sleep(min(self.debounce, 1.0))  # the last writes' events, if any

    async def rescan(self, progress: Progress | None = None) -> None:
        self.status.rescans += 1
        self._rescanning = True
        try:
            report = await sync_vault(self.ingestor, progress)
        finally:
            self._rescanning = False
        self.last_report = report
        for said in (*report.warnings, *report.errors):
            log.warning("%s", said)

    async def _rescan_or_retry(self) -> None:
        """A rescan while following: one that fails (Neo4j down, the vault folder unmounted)
        is logged and tried again shortly; the watcher goes on. The folder now holding another
        vault's notes (VaultFolderError) stops it: its events would write them in this one."""
        self._rescan_retry_at = None
        try:
            await self.rescan()
            self.outage.ended()
            if self._rescan_failed:  # the warning it left is over
                self.status.warning, self._rescan_failed = None, False
        except VaultFolderError:  # another vault's folder now at this path: stop, said why
            raise
        except Exception as exc:  # Neo4j away, the folder unmounted, or a bug: never fatal
            wait = RETRY_GRAPH_S
            if not isinstance(exc, (KnotworkError, Neo4jError)):  # a bug: backs off, to 5 min
                log.exception("rescan failed")
                self._rescan_bugs += 1
                wait = min(RETRY_GRAPH_S * 2**self._rescan_bugs, 300.0)
            self._rescan_retry_at = time.monotonic() + wait
            self._rescan_failed = True
            self.status.warning = f"rescan failed, tried again in {wait:.0f} s: {exc}"
            if isinstance(exc, GraphUnavailableError):
                self.outage.failed(exc, "a rescan waits")
            else:
                log.warning("%s", self.status.warning)
        else:
            self._rescan_bugs = 0

    async def retry_pending(self) -> None:
        """What ``knotwork retry`` does, under this watcher's lease, once the model answers."""
        try:
            embedded, extracted = await self.ingestor.retry_pending(ask_again=False)
        except GraphUnavailableError as exc:
            self.outage.failed(exc, "the chunks a model left pending wait")
            return
        except (KnotworkError, Neo4jError) as exc:
            log.warning("pending model work not finished yet: %s", exc)
            return
        if not self.ingestor.models.down:  # the pending chunks were read: Neo4j answers
            self.outage.ended()
        if embedded or extracted:
            log.info("pending model work done: %d embedded, %d extracted", embedded, extracted)

    def _observer(self, loop: asyncio.AbstractEventLoop) -> BaseObserver:
        handler = EventGate(loop, self.on_event, self._overflow, self.queue_max)
        self._handler = handler
        return start_observer(self.root, handler, self.polling, self.status)

    async def run(
        self, progress: Progress | None = None, ready: asyncio.Event | None = None
    ) -> None:
        """Take the lease, reconcile, then follow events until ``stop()``; LeaseLostError
        when a heartbeat finds the lease taken by another writer."""
        async with holding(self.lease, lambda: self.status.report(self.queue_length())):
            await self._follow(progress, ready)

    async def _follow(self, progress: Progress | None, ready: asyncio.Event | None) -> None:
        away = folder_unseen(self.root)
        if away and away != EMPTY:  # the observer would fail on it with a bare errno
            raise VaultUnavailableError(
                f"the vault folder {self.root} {away}; check KNOTWORK_VAULT_PATH (nothing in "
                "the graph was changed)"
            )
        loop = asyncio.get_running_loop()
        overflow_log = OverflowLog(loop, self._overflow)
        logging.getLogger(INOTIFY_LOGGER).addHandler(overflow_log)
        watched = self._followed(folder_id(self.root))  # before the rescan: a swap counts
        observer = self._observer(loop)  # before the rescan, so no change slips between
        rehearsal: asyncio.Task[None] | None = None
        try:
            await self.rescan(progress)
            rehearsal = rehearse.start(self.ingestor.core)  # the first edit plans none
            if ready:
                ready.set()
            last_rescan = last_retry = time.monotonic()
            looked = time.monotonic()
            while not self._stop.is_set():
                if not observer.is_alive():
                    try:
                        observer = self._observer(loop)
                    except OSError as exc:  # the folder gone at that moment: tried next pass
                        self.status.warning = f"the file observer stopped; not restarted: {exc}"
                    else:
                        self.status.warning = "the file observer stopped; restarted after a rescan"
                        self._rescan.set()
                if time.monotonic() - looked > 1:
                    looked = time.monotonic()
                    now_id = folder_id(self.root)
                    self._remember_full(now_id)
                    if now_id is not None and (now_id != watched or deaf(observer)):
                        # The vault folder was deleted and made again, or replaced: the old
                        # observer watches nothing (or the old folder) from now on.
                        try:
                            renewed = self._observer(loop)
                        except OSError as exc:  # gone again meanwhile: looked at next second
                            log.warning("the vault folder cannot be followed yet: %s", exc)
                        else:
                            log.warning("the vault folder was replaced; following the new one")
                            observer.stop()
                            observer.join(timeout=5)
                            observer, watched = renewed, self._followed(now_id)
                            self._rescan.set()
                now = time.monotonic()
                retry = self._rescan_retry_at is not None and now >= self._rescan_retry_at
                if (
                    self._rescan.is_set()
                    or retry
                    or (self.rescan_s and now - last_rescan > self.rescan_s)
                ):
                    self._rescan.clear()
                    await self._process_due()
                    self._resume()
                    await self._rescan_or_retry()
                    last_rescan = time.monotonic()
                await self._process_due()
                if time.monotonic() - last_retry > self.retry_s:
                    await self.retry_pending()
                    last_retry = time.monotonic()
                await _sleep_or(self._stop, 0.05)
            # Stopped: first the lease says so, and an API refuses writes (409) rather than
            # leave them to a watcher that may not see them. What is waiting out its debounce,
            # or arrives meanwhile, is applied now, not left to the next start's rescan (an
            # API write answered "accepted" may be among it), for at most STOP_FLUSH_S: a model
            # extracting facts on a slow machine must not hold a stop.
            await self._say_stopping()
            try:
                await asyncio.wait_for(self._flush(), STOP_FLUSH_S)
            except TimeoutError:
                log.warning(
                    "stopped before every change was applied (%d waiting); the next start's "
                    "rescan applies them",
                    len(self.pending),
                )
        finally:
            # The observer first: a failure the rehearsal raises must not leave its thread on.
            observer.stop()
            observer.join(timeout=5)
            logging.getLogger(INOTIFY_LOGGER).removeHandler(overflow_log)
            self._stop.set()
            await background.stop(rehearsal)

    def _followed(self, ident: tuple[int, int] | None) -> tuple[int, int] | None:
        """The folder now followed, said in the status the lease carries (api/writers.py
        ``follows``: a REST write is left to this watcher only by its folder)."""
        self.status.folder_id = folder_key(self.root)
        return ident

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
