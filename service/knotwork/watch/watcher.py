"""The watcher: the graph follows the vault folder live, and never drifts.

watchdog's events only say *which paths* to look at; the file system stays the truth. Each path
waits for a quiet period (debounce, watch/events.py) and is then applied as it is on disk
(watch/apply.py, which also says how a failed write waits). At start-up, after an observer
error, when events overflow (more than ``watch_queue_max`` waiting, or the kernel's inotify
queue overflowing), and every ``watch_rescan_s``, a full sync reconciles whatever events were
missed. One lease in Neo4j keeps a second writer out (``lease.holding``), so ``knotwork retry``
cannot run beside the watcher: it does the model's work itself, beside its writes
(ingest/model_work.py): a change's text, links and structure land at once, the model's facts
after. A vault folder deleted and made again (or replaced), or the vault path re-pointed to
another folder (a symbolic link), is followed anew, by a new observer (watch/following.py). A
stop applies what is still waiting, for at most ``STOP_FLUSH_S``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

from knotwork import background
from knotwork.errors import (
    ConfigError,
    GraphUnavailableError,
    KnotworkError,
    LeaseHeldError,
    LeaseLostError,
    ReembedRunningError,
    VaultUnavailableError,
)
from knotwork.graph.lease import Lease, holding, lease_status, watches
from knotwork.ingest import rehearse, waiting
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.model_work import Standing, model_passes
from knotwork.ingest.sync import Progress
from knotwork.vault.folders import EMPTY, folder_key, folder_unseen
from knotwork.watch.apply import Applier
from knotwork.watch.calibration import OwedCalibration
from knotwork.watch.following import Following
from knotwork.watch.queue import INOTIFY_LOGGER, OverflowLog, WatchStatus

log = logging.getLogger(__name__)

NO_FOLDER = "no vault folder: set KNOTWORK_VAULT_PATH or pass a path"
RETRY_PENDING_S = 30.0  # how often the chunks a model left pending are tried again
STOP_FLUSH_S = 30.0  # the longest a stop waits for the changes still waiting to be applied
LEASE_LOOK_S = 1.0  # how often a watcher whose lease was taken looks whether it is free again


class VaultWatcher(Applier):
    """One vault folder followed under the writer lease: the observer, the loop, the stop."""

    def __init__(self, ingestor: Ingestor, lease: Lease) -> None:
        if ingestor.root is None:
            raise ConfigError(NO_FOLDER)
        self.lease = lease
        self._held = False  # inside the lease's hold (``run``): changes are written under it
        settings = ingestor.settings
        self.polling = settings.watch_polling
        root = ingestor.root.resolve()
        super().__init__(
            ingestor,
            root,
            WatchStatus(
                mode="polling" if self.polling else "inotify",
                folder=str(root),
                folder_id=folder_key(root),  # the lease's first status, before _follow
            ),
        )
        self.rescan_s = settings.watch_rescan_s
        self.retry_s = RETRY_PENDING_S
        ingestor.extract_inline = False  # the model's work runs beside the writes
        ingestor.find_moves = True  # a move its events misname is found by its content
        ingestor.finisher = waiting.WATCHER  # its warnings say who embeds what waits
        ingestor.models.before_write = self._lease_confirmed
        # The model's work on pending chunks, beside the writes: this watcher's, under its
        # lease (asked for by its loop, stopped as the follow ends).
        self.model_work = model_passes(ingestor, said=Standing(), outage=self.outage)
        self.calibration = OwedCalibration(ingestor.core, ingestor.vault)  # the CLI's owe()s
        self._stop = asyncio.Event()  # the follow ends (asked, or the lease lost)
        self._stop_asked = asyncio.Event()  # stop() was called: the watcher ends
        self.started = asyncio.Event()  # it holds the lease and begins its first sync

    async def run(
        self, progress: Progress | None = None, ready: asyncio.Event | None = None
    ) -> None:
        """Take the lease, reconcile, then follow events until ``stop()``.

        A lease lost to a writer that does not watch the files — the API replaying its journal
        once Neo4j is back from an outage longer than the lease's TTL, a ``knotwork ingest`` —
        is taken back once that writer is done, and the rescan that starts every follow finds
        what changed meanwhile. Lost to another watcher: LeaseLostError, as two must never
        write beside each other (LeaseHeldError at the start, as before)."""
        lost: LeaseLostError | None = None
        while True:
            try:
                async with holding(
                    self.lease,
                    lambda: self.status.report(self.queue_length()),
                    outage=self.outage,  # one report of Neo4j away, heartbeat or write
                ):
                    if lost is not None:
                        log.warning("took the lease of vault %r back", self.lease.vault)
                    self._held = True
                    try:
                        await self._follow(progress, ready)
                    finally:
                        self._held = False
                return
            except ReembedRunningError:
                raise  # not waited out: once done, the graph names a model this one is not
            except LeaseLostError as exc:
                lost, why = exc, exc.lapsed
            except (LeaseHeldError, GraphUnavailableError) as exc:
                if lost is None:
                    raise  # at the start: another writer has it, or no Neo4j, as ever
                why = str(exc)  # taking it back, or the rescan after, met Neo4j away again
            log.warning(
                "%s; the watcher waits until no other writer holds the lease, then takes it "
                "back and rescans the vault",
                why,
            )
            if not await self._lease_free_again(lost):
                return  # stopped while waiting: the next start's rescan finds the changes
            self._stop.clear()

    async def _lease_free_again(self, lost: LeaseLostError) -> bool:
        """Poll the lease until no other live writer holds it (a refusal's held_by cannot say
        when): True, or False when ``stop()`` is asked; ``lost`` when another watcher holds it."""
        while not self._stop_asked.is_set():
            try:
                row = await lease_status(self.ingestor.core.store, self.lease.vault)
            except GraphUnavailableError:
                row = {"live": True, "watches": False, "holder": None}  # asked again shortly
            if row is None or not row["live"] or row["holder"] == self.lease.holder:
                return True  # free, or still this watcher's (a give-back Neo4j never got)
            if watches(row):
                raise lost
            await background.sleep_or(self._stop_asked, LEASE_LOOK_S)
        return False

    async def _follow(self, progress: Progress | None, ready: asyncio.Event | None) -> None:
        self.follow_target(folder_to_follow(self.vault_path))  # a link re-pointed meanwhile
        loop = asyncio.get_running_loop()
        overflow_log = OverflowLog(loop, self._overflow)
        logging.getLogger(INOTIFY_LOGGER).addHandler(overflow_log)
        # The observer before the rescan, so no change slips between.
        following = Following(loop, self, self.polling)
        rehearsal: asyncio.Task[None] | None = None
        try:
            self.started.set()
            # A stop cancels the start-up sync, minutes long on a large vault: each of its
            # batches is a transaction, and the next start's rescan does what it left.
            if await background.unless_set(self._stop_asked, self.rescan(progress)) is None:
                return
            rehearsal = rehearse.start(self.ingestor.core)  # the first edit plans none
            if ready:
                ready.set()
            await self._until_stopped(following)
            await self._apply_the_rest()
        finally:
            # The observer first: a failure the rehearsal raises must not leave its thread on.
            following.stop()
            logging.getLogger(INOTIFY_LOGGER).removeHandler(overflow_log)
            self._stop.set()
            try:
                await background.stop(rehearsal, self._created.cancel())
            finally:  # the model's work ends with the lease: its chunks stay pending
                try:
                    await self.model_work.stop()
                finally:
                    await self.calibration.stop()

    async def _until_stopped(self, following: Following) -> None:
        """The loop: the observer kept alive and on the vault folder, rescans when one is due,
        the changes whose debounce is over applied; the model's work asked for after each
        write, and now and then for chunks a model down left pending; an owed calibration
        tried again (watch/calibration.py)."""
        last_rescan = last_retry = time.monotonic()
        looked = time.monotonic()
        self.model_work.wanted()  # what the start-up rescan left pending
        while not self._stop.is_set():
            if (refused := self.model_work.refused) is not None:
                raise refused  # the graph re-embedded under it: stop, as a change would
            following.keep_alive()
            if time.monotonic() - looked > 1:
                looked = time.monotonic()
                following.look_at_folder()
            written = self.status.processed + self.status.rescans
            if self._rescan_due(last_rescan):  # a stop cancels it, as the start-up sync
                await background.unless_set(self._stop_asked, self._rescan_now())
                last_rescan = time.monotonic()
            await self._process_due()
            if self.status.processed + self.status.rescans != written:
                self.model_work.wanted()
            if time.monotonic() - last_retry > self.retry_s:
                self.model_work.wanted()
                last_retry = time.monotonic()
            self.calibration.poll()  # a calibration the first sync could not make
            await background.sleep_or(self._stop, 0.05)

    @property
    def idle(self) -> bool:
        """Nothing waiting or being written, no rescan due or under way, no model work or
        calibration running beside the writes."""
        return super().idle and not self.model_work.running and not self.calibration.running

    def _rescan_due(self, last_rescan: float) -> bool:
        """Whether to rescan now: one asked for, a failed one's retry due, or the period over."""
        now = time.monotonic()
        retry = self._rescan_retry_at is not None and now >= self._rescan_retry_at
        return bool(
            self._rescan.is_set() or retry or (self.rescan_s and now - last_rescan > self.rescan_s)
        )

    async def _process_due(self) -> None:
        """The lease confirmed before the changes now due are written: the heartbeat renews
        it every third of its TTL, and a change applied between a takeover and the next beat
        would be written beside the new holder (after an outage longer than the TTL, the
        API's journal replay). LeaseLostError ends the follow, the change still waiting."""
        now = time.monotonic()
        if self._held and any(self.is_due(item, now) for item in self.pending.values()):
            try:
                await self._lease_confirmed()
            except LeaseLostError:
                raise
            except KnotworkError:
                pass  # Neo4j away: the writes meet it too, and wait for it as they do
        await super()._process_due()

    async def _lease_confirmed(self) -> None:
        """The lease renewed with this watcher's status, or LeaseLostError: before the changes
        due are written (``_process_due``), before each chunk's extraction the model's work
        writes (the chunk stays pending; the heartbeat ends the follow), and to say it stops.
        Neo4j away fails this as it would the write."""
        await self.lease.renew(self.status.report(self.queue_length()))

    async def _apply_the_rest(self) -> None:
        """Stopped: first the lease says so, and an API refuses writes (409) rather than leave
        them to a watcher that may not see them. What is waiting out its debounce, or arrives
        meanwhile, is applied now, not left to the next start's rescan (an API write answered
        "accepted" may be among it), for at most STOP_FLUSH_S: a model extracting facts on a
        slow machine must not hold a stop."""
        await self._say_stopping()
        try:
            await asyncio.wait_for(self._flush(), STOP_FLUSH_S)
        except TimeoutError:
            log.warning(
                "stopped before every change was applied (%d waiting%s); the next start's "
                "rescan applies them",
                len(self.pending),
                ", and the notes of a folder that just appeared" if self._created.busy else "",
            )

    def stop(self) -> None:
        self._stop_asked.set()
        self._stop.set()

    async def _say_stopping(self) -> None:
        self.status.stopping = True
        try:
            await self._lease_confirmed()
        except KnotworkError as exc:  # the lease lapses on its own meanwhile
            log.debug("the lease could not say the watcher stops: %s", exc)

    async def _flush(self) -> None:
        """Apply every change waiting, and those whose events arrive meanwhile (a REST write
        answered before the lease said this watcher stops): until a pass finds none new."""
        tried: set[str] = set()  # each path once: one that failed on the graph is left
        while True:
            if not (fresh := [p for p in self.pending if p not in tried]):
                if not self.judging:  # judging: nothing applies, the next start's sync judges
                    await self._created.listed()  # the notes of a folder that just appeared
                if not (fresh := [p for p in self.pending if p not in tried]):
                    return
            for path in fresh:
                self.pending[path].due = 0.0
            tried.update(fresh)
            await self._process_due()
            await asyncio.sleep(min(self.debounce, 1.0))  # the last writes' events, if any


def folder_to_follow(root: Path | None) -> Path:
    """The vault folder, resolved: ConfigError without one, VaultUnavailableError for one that
    is missing or cannot be listed (an empty one is followed: a drive's mount point, or a vault
    whose last note went). Cheap: `knotwork watch` asks before it loads the model clients."""
    if root is None:
        raise ConfigError(NO_FOLDER)
    root = root.resolve()
    away = folder_unseen(root)
    if away and away != EMPTY:  # the observer would fail on it with a bare errno
        raise VaultUnavailableError(
            f"the vault folder {root} {away}; check KNOTWORK_VAULT_PATH (nothing in the graph "
            "was changed)"
        )
    return root
