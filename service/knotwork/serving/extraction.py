"""The model's work of the API process, beside its note writes: a direct REST write (``PUT
/notes``, the MCP ``upsert_note`` tool) lands its text, links, frontmatter facts and embeddings
and answers at once, its chunks ``pending`` extraction; a background pass asks the chat model
about them after. A CPU model takes a minute a chunk, so a write that waited for it would
outlast any HTTP or MCP client's patience.

A pass is asked for after each direct write (or journal replay) that left chunks pending, and
every ``EXTRACT_EVERY_S`` while the graph holds pending chunks (a model outage's, ``knotwork
retry``'s work done by a running API). One pass takes the process's shared lease
(``VaultWriters.model_pass``) for at most ``EXTRACT_PASS`` chunks and gives it back, leaving a
gap before the next, so a ``knotwork ingest`` is never kept out for long; it does nothing while
this process's sync runs or another writer holds the lease (a watcher extracts itself, a CLI
ingest waits for its own extraction). A pass is no direct write: a ``POST /sync`` does not wait
for it. A stop cancels the pass under way (the model's answer is not awaited): what it had not
done stays pending.

The periods stay quiet while nothing changes: once a pass met another writer's lease, they
read only the lease (not the pending count) until it is free or this process's again (a
`knotwork reembed`'s lease over every vault likewise); once the graph was re-embedded under
this process (ManifestMismatchError, which says to restart it), they read only the manifest,
which matches again only if the graph is re-embedded back. A refusal is logged once, when it
begins, not every period, and so is a chat model that stays down (``model_work.Standing``, the
watcher's way too), with a line when it answers again.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from knotwork.errors import (
    GraphQueryError,
    GraphUnavailableError,
    KnotworkError,
    LeaseHeldError,
    LeaseLostError,
    ManifestMismatchError,
    ReembedRunningError,
)
from knotwork.graph.lease import lease_status
from knotwork.graph.reembed_guard import GUARD
from knotwork.ingest import owed as owing
from knotwork.ingest.changes import Progress
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.model_work import ModelWork, Standing, pending_work

if TYPE_CHECKING:  # the writers own this work (serving/writers.py)
    from knotwork.serving.writers import VaultWriters

log = logging.getLogger(__name__)

EXTRACT_PASS = 4  # chunks one pass does under the lease: minutes, at worst, on a CPU model
EXTRACT_EVERY_S = 30.0  # how often the pending chunks are looked for (a model back again)
PASS_GAP_S = 0.5  # the lease left free between two passes, for another writer to take


class Extraction:
    """The API process's passes over the pending chunks, one at a time."""

    def __init__(self, writers: VaultWriters) -> None:
        self.writers = writers
        self._ingestor: Ingestor | None = None
        self.every_s = EXTRACT_EVERY_S
        self._work = ModelWork(self._pass, lambda: owing.owed(self.ingestor.models))
        self._stopped = False
        self.said = Standing()  # what the passes meet, said once while it stands
        self._elsewhere = False  # another writer held the lease at the last pass
        self._reembedding = False  # a `knotwork reembed` held every vault at the last pass
        # The graph re-embedded with another model under this process: no pass can write.
        self.stale: ManifestMismatchError | None = None

    @property
    def ingestor(self) -> Ingestor:
        """One ingestor for every pass (made at the first), its writes confirming the lease.
        The models' back-offs are the vault's (ingest/modelcalls.py): a pass waits out one a
        write began, and a model that is down is not asked about a chunk every period."""
        if self._ingestor is None:
            self._ingestor = Ingestor(self.writers.core)
            self._ingestor.models.before_write = self.writers.confirm_model_pass
        return self._ingestor

    @property
    def running(self) -> bool:
        return self._work.running

    def wanted(self) -> None:
        """A pass now (or after the running one); none once stopped. Asked for, it no longer
        waits for another writer's lease to be given back: this process has just held it."""
        if not self._stopped:
            self._elsewhere = False
            self._work.wanted()

    async def stop(self) -> None:
        """End the work without waiting for the model: its chunks stay pending."""
        self._stopped = True
        await self._work.stop()

    async def forever(self) -> None:
        """The lifespan's background task: a pass every period while chunks are pending (a
        count read without the lease), and the work stopped when the task is."""
        try:
            while True:  # from the start: what an earlier run or an outage left pending
                try:
                    if await self._due():
                        self.wanted()
                except (GraphUnavailableError, GraphQueryError) as exc:
                    log.debug("pending chunks not looked for: %s", exc)
                except Exception:  # the task must outlive any one failure
                    log.exception("pending chunks not looked for; looked again later")
                await asyncio.sleep(self.every_s)
        finally:
            await self.stop()

    async def _due(self) -> bool:
        """Whether this period starts a pass: chunks are pending and a pass could do them.
        The pending count (a scan of the vault's chunks) is read only when no other writer
        holds the lease and the graph's model is this process's."""
        if self.running:
            return False
        if self.stale is not None:
            try:
                await self.writers.core.check_manifest()
            except ManifestMismatchError:
                return False  # said once, when the passes stopped
            self.stale = None
            log.info(
                "the graph's embedding model matches this server's again: "
                "the pending model work resumes"
            )
        if self._reembedding:  # said once; its end looked for in its lease alone
            row = await lease_status(self.writers.core.store, GUARD)
            if row is not None and row["live"]:
                return False
            self._reembedding = False
            log.info("the re-embedding's lease is free again: pending chunks looked for")
        if self._elsewhere:
            # Read each period, not the refusal's held_by: it said who held it, not when it left.
            row = await lease_status(self.writers.core.store, self.writers.vault)
            if row is not None and row["live"] and row["holder"] != self.writers.holder:
                return False  # its holder does the work (a watcher) or waits for its own
            self._elsewhere = False
            log.debug("the vault's lease is free again: pending chunks looked for")
        trouble = self.ingestor.models.trouble
        read = trouble.refusals
        if (await owing.owed(self.ingestor.models)).chunks:
            return True
        if not self.writers.syncing:  # none waits (refused notes edited): no pass would say it
            trouble.settled(read, embedded=False)
        return False

    async def _pass(self, limit: int, progress: Progress) -> int:
        """``pending_work`` for a few chunks under the shared lease: how many it did, each
        chunk told to ``progress`` (the run's log line)."""
        if self.writers.syncing:
            return 0  # the sync waits for its own extraction; the period finds the rest
        try:
            async with self.writers.model_pass():
                done = await pending_work(
                    self.ingestor, min(limit, EXTRACT_PASS), progress=progress, said=self.said
                )
        except ReembedRunningError as exc:  # before its base classes: said once, waited out
            if not self._reembedding:
                log.warning("pending model work waits: %s", exc.lapsed)
            self._reembedding = True
            return 0
        except LeaseLostError as exc:  # before LeaseHeldError, its base class
            log.warning("pending model work stopped: %s", exc.lapsed)
            return 0
        except LeaseHeldError:  # another writer: a watcher extracts, a CLI waits for its own
            self._elsewhere = True
            return 0
        except GraphUnavailableError as exc:
            log.debug("the chunks a model left pending wait for Neo4j: %s", exc)
            return 0
        except ManifestMismatchError as exc:  # no pass can write until a restart
            if self.stale is None:
                log.warning("pending model work stopped until this server is restarted: %s", exc)
            self.stale = exc
            return 0
        except KnotworkError as exc:
            self.said.failed(f"pending model work not finished yet: {exc}")
            return 0
        if done:
            await asyncio.sleep(PASS_GAP_S)  # the lease free a moment before the next pass
        return done
