"""One writer per vault: a lease node in Neo4j, renewed by its holder's heartbeat.

Every graph writer of a vault — the watcher, ``POST /sync``, the REST note writes and their
journal replay, ``knotwork ingest``, ``retry`` and ``reembed`` — writes only inside
``holding(lease, status)``: it takes the lease (``LeaseHeldError`` naming the holder when
another live one has it), renews it every ``ttl/3`` seconds while it writes, and gives it back
at the end. A renewal that finds the lease taken by another holder (it lapsed, say, while this
process was paused) cancels the writer, which ends with ``LeaseLostError`` instead of writing on
beside the new holder. A crashed holder's lease lapses after ``lease_ttl_s``.

The lease also carries its holder's ``mode`` and whether it ``watches`` the vault's files: a
REST write made while a watcher holds the lease is ingested by that watcher; one made while a
writer that does not watch holds it would be ingested by no one, so it is refused instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any

from knotwork.errors import (
    GraphUnavailableError,
    LeaseHeldError,
    LeaseLostError,
    ReembedRunningError,
)
from knotwork.graph.lease_gone import holder_gone, process_ns
from knotwork.graph.queries.admin import LEASE_ACQUIRE, LEASE_GET, LEASE_RELEASE, LEASE_RENEW
from knotwork.graph.reembed_guard import GUARD, ago, reembedding
from knotwork.graph.store import GraphStore

if TYPE_CHECKING:
    from knotwork.outage import Outage

log = logging.getLogger(__name__)

# Modes of holders that follow the vault's files (leases written before ``watches`` existed).
WATCHING_MODES = frozenset({"inotify", "polling"})
# The API server's mode while a background pass extracts the facts of chunks its REST writes
# left pending (serving/extraction.py): it holds the lease a few chunks at a time.
REST_EXTRACT_MODE = "rest-extract"

Status = Mapping[str, Any] | Callable[[], Mapping[str, Any]]
# A refused writer's advice while a watcher holds the vault: a text, or one made from the
# holder's lease (a watcher of another folder under the same vault name is not one to leave
# the work to).
Watched = str | Callable[[Mapping[str, Any]], str]

# When this process made a status it sends, in the order made: the lease states the latest
# one made, whichever of two renewals Neo4j commits last (lease_renew.cypher).
_STATED = itertools.count(1)


# What a writer refused by a watcher is told, unless its command words its own: the watcher
# never "finishes" (it follows the vault until stopped), and it does a writer's work itself.
WATCHED = (
    "The watcher keeps this vault in step itself (every change, and the chunks a model left "
    "pending once it answers), so there is nothing to do here; to run this writer anyway, stop "
    "the watcher first"
)


class Lease:
    def __init__(
        self,
        store: GraphStore,
        vault: str,
        ttl_s: int,
        holder: str | None = None,
        *,
        watched: Watched = WATCHED,
    ) -> None:
        self.store, self.vault, self.ttl_s = store, vault, ttl_s
        self.host, self.pid = socket.gethostname(), os.getpid()
        self.holder = holder or new_holder_id()
        self.watched = watched  # the refusal's advice when a watcher holds the vault

    async def acquire(self, status: Mapping[str, Any] | None = None) -> None:
        """Take the lease, or renew it when this holder has it; LeaseHeldError when another
        live holder has it."""
        rows: list[Any] = []
        for _ in range(3):
            rows = await self.store.write(LEASE_ACQUIRE, vault=self.vault, **self._params(status))
            if rows:
                break
            # No row: the lease was given back (its node deleted) while this waited for the
            # node's lock; it is free now, so taken again.
        if not rows:
            raise LeaseHeldError(
                f"the lease of vault {self.vault!r} changed hands three times while this writer "
                "tried to take it; try again"
            )
        row = rows[0]
        if row["reembed"]:  # every vault's writers wait for a live `knotwork reembed`
            raise ReembedRunningError(reembedding(self.vault, row["reembed"]))
        if not row["ok"]:  # the row is the holder's lease, read under its node's lock
            raise LeaseHeldError(self.refusal(row), {**row, "vault": self.vault})

    def _params(self, status: Mapping[str, Any] | None) -> dict[str, Any]:
        """The parameters a take of this lease passes (lease_acquire, and the re-embedding's
        lease_reembed_acquire, which has no vault): a field every holder records goes here."""
        return {
            "guard": GUARD,
            "holder": self.holder,
            "host": self.host,
            "pid": self.pid,
            "ttl_s": self.ttl_s,
            # Where the holder runs: a writer started after it was killed tells it is gone.
            "status": {**stated(status), "process_ns": process_ns()},
        }

    async def check_free(self) -> None:
        """LeaseHeldError, worded as ``acquire``'s, when another live holder has the lease now;
        nothing is taken. A look before a writer's slow start (the model clients), so it is
        refused at once; ``acquire`` still decides. The API's background extraction is left to
        it: that holder gives the lease back within moments, maybe before the start is over; so
        is a holder of this machine no longer running (graph/lease_gone.py): it lapses soon."""
        rows = await self.store.read(LEASE_GET, vault=self.vault)
        row = rows[0]["lease"] if rows and rows[0]["live"] else {}
        if (
            row
            and row.get("holder") != self.holder
            and row.get("mode") != REST_EXTRACT_MODE
            and not holder_gone(row, self.holder)  # a killed holder's lapse is waited out
        ):
            raise LeaseHeldError(self.refusal(row), row)

    def refusal(self, row: Mapping[str, Any]) -> str:
        """Why this writer is refused: who holds the lease (said to be a watcher when it is
        one), and what to do about it."""
        watcher = "the watcher " if watches(row) else ""
        return (
            f"vault {self.vault!r} is being written by {watcher}{row['holder']} (host "
            f"{row['host']}, pid {row['pid']}, mode {row['mode']}, last heartbeat "
            f"{ago(row.get('heartbeat_at'))}); only one writer per vault. {self._advice(row)}"
        )

    def _advice(self, row: Mapping[str, Any]) -> str:
        """What the refused writer can do: a holder that takes the lease a few chunks at a
        time (the API's background extraction) needs no stopping, only a moment; a watcher
        never finishes, and already does what most writers would."""
        if row.get("mode") == REST_EXTRACT_MODE:
            return (
                "That writer is a Knotwork server (the REST API or the MCP server) extracting "
                "facts for the notes written through it, a few chunks at a time; it gives the "
                "lease back between passes, so try again shortly (or stop that server)."
            )
        if watches(row):
            watched = self.watched(row) if callable(self.watched) else self.watched
            return (
                f"{watched} (a watcher that was killed gives the vault up {self.ttl_s} s "
                "after its last heartbeat)."
            )
        return f"Stop that writer (or wait for it to finish), or wait {self.ttl_s} s after it died."

    async def renew(self, status: Mapping[str, Any] | None = None) -> None:
        """Extend the lease this holder has; LeaseLostError when it has it no more."""
        rows = await self.store.write(
            LEASE_RENEW,
            vault=self.vault,
            guard=GUARD,
            holder=self.holder,
            ttl_s=self.ttl_s,
            status=stated(status),
        )
        # No row: the lease was deleted (given back, the database reset) while this renewal
        # waited for the node's lock; no one holds it now.
        row: Mapping[str, Any] = rows[0] if rows else {"ok": False, "holder": None}
        if row.get("reembed"):  # this lease lapsed, and a re-embedding started meanwhile
            said = reembedding(self.vault, row["reembed"])
            raise ReembedRunningError(f"{said} This writer stopped.", said)
        if not row["ok"]:
            now = (
                f"{row['holder']} (host {row['host']}, pid {row['pid']}) holds it now"
                if row["holder"]
                else "no one holds it now"
            )
            lapsed = f"the lease of vault {self.vault!r} lapsed and was lost ({now})"
            raise LeaseLostError(
                f"{lapsed}; this writer stopped so as not to write beside another. Run it "
                f"again; the heartbeat must reach Neo4j at least every {self.ttl_s} s "
                "(KNOTWORK_LEASE_TTL_S)",
                lapsed,
            )

    async def release(self) -> None:
        await self.store.write(LEASE_RELEASE, vault=self.vault, holder=self.holder)


def stated(status: Mapping[str, Any] | None) -> dict[str, Any]:
    """``status`` as sent, numbered in the order this process made it (``stated``)."""
    return {**dict(status or {}), "stated": next(_STATED)}


def new_holder_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@contextlib.asynccontextmanager
async def holding(
    lease: Lease, status: Status, *, release: bool = True, outage: Outage | None = None
) -> AsyncIterator[Lease]:
    """Hold ``lease`` for the block, renewed every ttl/3 s with ``status`` (a map, or a callable
    giving the current one). If a renewal finds the lease lost, the block is cancelled at its
    next await and LeaseLostError raised from it. ``release=False`` leaves the lease to lapse
    or to another user of the same holder id (see ``serving.writers``). ``outage``: the holder's
    own report of Neo4j away (the watcher's), through which a renewal's failure on it is said,
    so an outage is said once whichever of the holder's tries meets it first."""

    def report() -> dict[str, Any]:
        return dict(status() if callable(status) else status)

    await lease.acquire(report())
    task = asyncio.current_task()
    assert task is not None
    lost: list[LeaseLostError] = []
    active = True

    async def heartbeat() -> None:
        failing = False
        while True:
            await asyncio.sleep(lease.ttl_s / 3)
            try:
                await lease.renew(report())
            except LeaseLostError as exc:
                if active:
                    lost.append(exc)
                    task.cancel()
                return
            except Exception as exc:
                # Writes fail too while Neo4j is away; the lease stays ours unless taken.
                # Said once an outage (the writers say theirs): every ttl/3 s is noise. Any
                # failure, not only an outage: a heartbeat that ended on another error would
                # let the lease lapse under a writer that goes on writing.
                if outage is not None and isinstance(exc, GraphUnavailableError):
                    outage.failed(exc, f"the writer of vault {lease.vault!r} waits")
                else:
                    (log.debug if failing else log.warning)(
                        "lease heartbeat of vault %r failed: %s", lease.vault, exc
                    )
                failing = True
            else:
                if outage is not None:
                    outage.ended()
                elif failing:
                    log.info("lease heartbeat of vault %r reaches Neo4j again", lease.vault)
                failing = False

    beat = asyncio.create_task(heartbeat())
    try:
        yield lease
    except BaseException as exc:
        if not lost:
            raise
        if task.cancelling():
            task.uncancel()  # the cancel was ours: the block ends with the lease's error
        log.error("%s", lost[0])
        raise lost[0] from (None if isinstance(exc, asyncio.CancelledError) else exc)
    finally:
        active = False
        beat.cancel()
        try:  # the beat's end awaited; a cancel of this task landing here is raised, not
            await asyncio.wait([beat])  # taken for the beat's: a stop must end the holder
        finally:
            if release and not lost:
                with contextlib.suppress(GraphUnavailableError):  # it lapses after its TTL
                    await lease.release()
    if lost:  # the block ended before the cancel reached it: its writes are done, but say so
        raise lost[0]


def watches(row: Mapping[str, Any]) -> bool:
    """Whether a lease's holder follows the vault's files (a watcher ingests what it sees)."""
    flag = row.get("watches")
    return bool(flag) if flag is not None else row.get("mode") in WATCHING_MODES


async def lease_status(store: GraphStore, vault: str) -> dict[str, Any] | None:
    """The lease and the status its holder last reported, or None."""
    rows = await store.read(LEASE_GET, vault=vault)
    return {**rows[0]["lease"], "live": rows[0]["live"]} if rows else None
