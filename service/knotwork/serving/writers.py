"""How a REST write reaches the graph, with one graph writer per vault.

The API process writes the graph under one lease holder id, shared by its note writes, its
journal replay and its ``POST /sync`` (each renews it with its own heartbeat, stating what the
users inside do, MODES, and the last one to finish gives it back). Which way a write goes:

- **direct** — no one else holds the lease: this process takes it and ingests the note (200);
  the path is journaled from before the file changes until the graph shows it, so a write cut
  off in between (a lost lease, a cancelled request, a crash) is replayed, not lost;
- **queued** — this process's own sync is running: its plan was read before the write, so the
  path is journaled and the sync ingests it from disk before it gives the lease back (202);
- **watched** — a watcher of another process holds the lease: it sees the file change (202);
  the path is journaled all the same, for a watcher killed or stopping before it saw it
  (serving/watched.py);
- **busy** — another writer that does not watch the files holds it (a CLI ingest, another
  API's sync), or a watcher of another folder under the same vault name: nothing would ingest
  the write, so it is refused (409) before the file changes;
- **offline** — Neo4j does not answer: the file changes, the path is journaled (503), and the
  replay task brings the graph in step once Neo4j is back.

A direct write, and the journal's replay, does not wait for the chat model: the chunks it
leaves pending are extracted by the writers' background passes (``extraction``,
serving/extraction.py), each a user of the shared lease for a few chunks but no direct write,
so a sync never waits behind the model.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal

from knotwork.core import Core
from knotwork.errors import GraphUnavailableError, KnotworkError, LeaseHeldError, LeaseLostError
from knotwork.graph.lease import (
    REST_EXTRACT_MODE,
    Lease,
    holding,
    new_holder_id,
    watches,
)
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.journal import Journal, replay
from knotwork.plural import counted
from knotwork.serving.extraction import Extraction
from knotwork.serving.watched import Handed
from knotwork.vault.folders import follows

log = logging.getLogger(__name__)

REPLAY_EVERY_S = 2.0  # how often pending writes are retried while there are any
LEAVE_WAIT_S = 5.0  # the longest a cancelled user waits for the lease's give-back

Kind = Literal["direct", "queued", "watched", "busy", "offline"]
MODEL_MODE = REST_EXTRACT_MODE  # the lease's mode while a pass of the model's work holds it
# The shared lease's mode is that of the first of these with a user inside: a writer refused
# while a note write or a sync is under way is told so, and only a lease held by model passes
# alone says MODEL_MODE, which a CLI writer waits out (cli/lease_taken.py).
MODES = ("rest-sync", "rest-write", MODEL_MODE)
# Who embeds and extracts what this process's writes leave pending: its background passes.
SERVER = "the server"


@dataclass(frozen=True)
class Way:
    kind: Kind
    holder: dict[str, Any] | None = None  # the lease's holder, for watched and busy
    elsewhere: bool = False  # busy: the holder is a live watcher of another folder


class VaultWriters:
    """The API process's writers of the configured vault, and its journal."""

    def __init__(self, core: Core, journal: Journal) -> None:
        self.core, self.journal = core, journal
        self.vault = core.settings.vault_name
        self.holder = new_holder_id()
        self.syncing = False
        self._sync_turn: object | None = None  # the sync that set ``syncing``
        self._users = 0  # blocks inside the lease: direct writes, replays, the sync
        self._modes: Counter[str] = Counter()  # the users inside, by their mode
        self._direct = 0
        self._no_direct = asyncio.Event()
        self._no_direct.set()
        self._turn = asyncio.Lock()  # taking and giving back the lease never interleave
        self._leaving: set[asyncio.Future[None]] = set()  # give-backs under way
        self.extraction = Extraction(self)  # the model's work the direct writes leave pending
        self.handed = Handed(core, journal, self.vault)  # writes a watcher was handed

    def _lease(self) -> Lease:
        return Lease(self.core.store, self.vault, self.core.settings.lease_ttl_s, self.holder)

    def _status(self) -> dict[str, Any]:
        """What the shared lease says of its holder now (the users inside, MODES)."""
        mode = next((mode for mode in MODES if self._modes[mode]), MODEL_MODE)
        return {"mode": mode, "watches": False}

    async def _leave(self, mode: str) -> None:
        """One user less; the last gives the lease back. Run to its end even when the leaving
        task is cancelled (a server's stop cancels its replay or extraction mid-release): cut
        off, the lease stood until its TTL and kept every other writer out meanwhile. A
        cancelled caller (before or during the give-back) waits for it at most LEAVE_WAIT_S,
        and a second cancel ends that wait: a give-back that hangs (Neo4j stalled) must not
        hold a stop; it runs on alone."""
        leaving = asyncio.ensure_future(self._give_back(mode))
        self._leaving.add(leaving)  # referenced until done: a task left alone may be collected
        leaving.add_done_callback(self._leaving.discard)
        task = asyncio.current_task()
        try:
            if task is None or not task.cancelling():
                await asyncio.shield(leaving)
                return
        except asyncio.CancelledError:
            await self._wait_bounded(leaving)
            raise
        await self._wait_bounded(leaving)  # the block ended on a cancel: it goes on after

    async def _wait_bounded(self, leaving: asyncio.Future[None]) -> None:
        leaving.add_done_callback(self._left_alone)
        if not leaving.done():
            await asyncio.wait([leaving], timeout=LEAVE_WAIT_S)

    def _left_alone(self, leaving: asyncio.Future[None]) -> None:
        """A give-back a cancelled caller did not wait to raise ended: its failure logged."""
        if not leaving.cancelled() and (exc := leaving.exception()) is not None:
            log.warning("the lease of vault %r was not given back: %s", self.vault, exc)

    async def _give_back(self, mode: str) -> None:
        async with self._turn:
            was = self._status()
            self._users -= 1
            self._modes[mode] -= 1
            if self._users == 0:
                with contextlib.suppress(GraphUnavailableError):  # it lapses after its TTL
                    await self._lease().release()
                return
            if self._status() == was:
                return
        # What the users inside do now, said at once, not at the next beat (a third of the
        # TTL), and not awaited nor under ``_turn``: a stalled Neo4j must hold neither the
        # finished user nor the next one's take. Any later renewal states over it (``stated``).
        restate = asyncio.ensure_future(self._restate())
        self._leaving.add(restate)
        restate.add_done_callback(self._leaving.discard)

    async def _restate(self) -> None:
        try:
            await self._lease().renew(self._status())
        except Exception as exc:  # the users' own beats meet it too, and say it
            log.debug("the lease of vault %r was not restated: %s", self.vault, exc)

    @contextlib.asynccontextmanager
    async def _held(self, mode: str) -> AsyncIterator[None]:
        """The shared lease for the block; LeaseHeldError when another holder has it."""
        async with contextlib.AsyncExitStack() as stack:
            async with self._turn:
                self._users += 1
                self._modes[mode] += 1
            stack.push_async_callback(functools.partial(self._leave, mode))
            await stack.enter_async_context(holding(self._lease(), self._status, release=False))
            yield

    @contextlib.asynccontextmanager
    async def model_pass(self) -> AsyncIterator[None]:
        """The shared lease for one pass of the model's work: a user of the lease but no
        direct write, so a sync does not wait for it; LeaseHeldError when another holder has
        it."""
        async with self._held(MODEL_MODE):
            yield

    async def confirm_model_pass(self) -> None:
        """Before a pass writes a chunk's extraction: the lease renewed, or LeaseLostError (the
        model's answer may come after another writer took a lapsed lease, before a beat)."""
        await self._lease().renew(self._status())

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[Way]:
        """The way one note write goes; inside, a direct write holds the lease."""
        if self.syncing:
            yield Way("queued", {"holder": self.holder, "mode": "rest-sync"})
            return
        # Counted before the first await: a sync starting while this write waits for the
        # lease waits for it in turn, rather than reading its plan beside a direct write.
        self._direct += 1
        self._no_direct.clear()
        async with contextlib.AsyncExitStack() as stack:
            stack.callback(self._direct_done)
            try:
                await stack.enter_async_context(self._held("rest-write"))
            except LeaseLostError:
                raise
            except LeaseHeldError as exc:
                way = await self._other_holder(exc.held_by)
            except GraphUnavailableError:
                way = Way("offline")
            else:
                way = Way("direct", {"holder": self.holder, "mode": "rest-write"})
            yield way

    def _direct_done(self) -> None:
        self._direct -= 1
        if self._direct == 0:
            self._no_direct.set()

    async def _other_holder(self, held_by: dict[str, Any] | None) -> Way:
        """The way of a write the take refused; ``held_by``: the holder as the take read it,
        its folder included (a second read may find it gone, or another holder)."""
        if held_by is None or not watches(held_by):
            return Way("busy", held_by)
        root = self.core.settings.vault_path
        if root is None or await asyncio.to_thread(follows, held_by, root):
            return Way("watched", held_by)
        return Way("busy", held_by, elsewhere=True)  # it would never see the write

    @contextlib.asynccontextmanager
    async def sync(self) -> AsyncIterator[None]:
        """Hold the lease for a whole-vault sync; writes made meanwhile are queued and applied
        from disk before the block ends (``drain``)."""
        if self.syncing:
            raise LeaseHeldError(
                f"a sync of vault {self.vault!r} is already running in this process; "
                "wait for it to finish"
            )
        self.syncing = True
        mine = self._sync_turn = object()
        try:
            await self._no_direct.wait()  # writes already under way finish first
            async with self._held("rest-sync"):
                yield
        finally:
            # Only while no later sync has begun: once this one's drain let writes go direct,
            # another may start before this one has left the lease, and it owns the flag.
            if self._sync_turn is mine:
                self.syncing = False

    async def drain(self, ingestor: Ingestor) -> None:
        """Apply the queued writes until none is left, then take new writes directly again (no
        await between the last look and the switch, so none is left behind)."""
        while self.journal.paths():
            try:
                await replay(ingestor, self.journal)
            except GraphUnavailableError:
                raise
            except Exception as exc:  # kept in the journal: the background replay tries again
                log.warning("pending note writes left to the background replay: %s", exc)
                break
        self.syncing = False

    async def replay_once(self) -> int:
        """Apply the pending writes if the lease can be had now; 0 when it cannot. As a direct
        write, each lands without waiting for the chat model (after an outage, a slow model
        would hold the replay, and the writes behind its lease, for minutes): the chunks stay
        pending for the background extraction, asked for once the replay is done (one that
        failed part-way leaves them to the extraction's next period). While a watcher holds
        the lease, the writes handed to it that it applied leave the journal instead."""
        if self.syncing or not self.journal.pending():
            return 0
        done = 0
        async with self.write() as way:
            if way.kind == "direct":
                ingestor = Ingestor(self.core)
                ingestor.extract_inline = False
                ingestor.finisher = SERVER
                done = await replay(ingestor, self.journal)
        if way.kind == "watched":  # a live watcher's lease: the writes it applied go
            await self.handed.prune()
        if done:
            self.extraction.wanted()
        return done

    async def replay_forever(self) -> None:
        """The lifespan's background task: retry the pending writes every few seconds."""
        said = ""  # the last reason logged: one that stands (a drive unmounted) is said once
        while True:
            try:
                if done := await self.replay_once():
                    log.info("applied %s to the graph", counted(done, "pending note write"))
                said = ""
            except GraphUnavailableError as exc:
                log.debug("pending note writes wait for Neo4j: %s", exc)
            except KnotworkError as exc:
                if str(exc) != said:
                    log.warning("pending note writes not applied yet: %s", exc)
                said = str(exc)
            except Exception:  # the task must outlive any one failure, or nothing replays
                log.exception("pending note writes not applied yet; tried again shortly")
            await asyncio.sleep(REPLAY_EVERY_S)
