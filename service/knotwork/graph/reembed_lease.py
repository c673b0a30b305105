"""`knotwork reembed`'s lease over every vault of the database (graph/reembed_guard.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from knotwork.errors import LeaseHeldError, LeaseLostError
from knotwork.graph.lease import REST_EXTRACT_MODE, Lease
from knotwork.graph.queries.admin import (
    LEASE_REEMBED_ACQUIRE,
    LEASE_REEMBED_HOLDERS,
    LEASE_REEMBED_RELEASE,
    LEASE_REEMBED_RENEW,
)
from knotwork.graph.reembed_guard import GUARD, lost, refused
from knotwork.graph.store import GraphStore


class ReembedLease(Lease):
    """Taken with the holder id of the re-embedding's own vault lease, which it does not count
    among the writers that refuse it; renewed only while live (``holding``): a vault's lease
    that lapsed is taken back if no one took it, but a re-embedding that lapsed may have had a
    writer (or another re-embedding) write meanwhile."""

    def __init__(self, store: GraphStore, ttl_s: int, holder: str) -> None:
        super().__init__(store, GUARD, ttl_s, holder)

    async def acquire(self, status: Mapping[str, Any] | None = None) -> None:
        """Take it; LeaseHeldError naming every live writer (of any vault) when one is."""
        rows = await self.store.write(LEASE_REEMBED_ACQUIRE, **self._params(status))
        if not rows[0]["ok"]:
            raise LeaseHeldError(refused(rows[0]["holders"], self.ttl_s))

    async def others_free(self, vault: str) -> None:
        """LeaseHeldError, worded as ``acquire``'s, when a writer of a vault other than
        ``vault`` (whose own lease ``Lease.check_free`` looks at) or another re-embedding holds
        its lease live now; nothing is taken, ``acquire`` still decides."""
        rows = await self.store.read(
            LEASE_REEMBED_HOLDERS, guard=GUARD, vault=vault, skip_mode=REST_EXTRACT_MODE
        )
        if holders := [h for h in rows[0]["holders"] if h.get("holder") != self.holder]:
            raise LeaseHeldError(refused(holders, self.ttl_s))

    async def renew(self, status: Mapping[str, Any] | None = None) -> None:
        """Extend it while live and this holder's; LeaseLostError said of the re-embedding."""
        rows = await self.store.write(
            LEASE_REEMBED_RENEW,
            guard=GUARD,
            holder=self.holder,
            ttl_s=self.ttl_s,
            status=dict(status or {}),
        )
        if not rows[0]["ok"]:
            raise LeaseLostError(*lost(rows[0], self.holder, self.ttl_s))

    async def release(self) -> None:
        await self.store.write(LEASE_REEMBED_RELEASE, guard=GUARD, holder=self.holder)


async def check_free(lease: Lease) -> None:
    """The refusals of a re-embedding that holds ``lease`` (its own vault's), read before its
    slow start (the model clients) so they come at once: that vault's writer, then any other
    vault's or another re-embedding."""
    await lease.check_free()
    await ReembedLease(lease.store, lease.ttl_s, lease.holder).others_free(lease.vault)
