"""`knotwork reembed`'s lease over every vault of the database (graph/reembed_guard.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from knotwork.errors import LeaseHeldError
from knotwork.graph.lease import Lease
from knotwork.graph.queries.admin import LEASE_REEMBED_ACQUIRE, LEASE_REEMBED_RELEASE
from knotwork.graph.reembed_guard import GUARD, refused
from knotwork.graph.store import GraphStore


class ReembedLease(Lease):
    """Taken with the holder id of the re-embedding's own vault lease, which it does not count
    among the writers that refuse it; renewed as any lease is (``holding``)."""

    def __init__(self, store: GraphStore, ttl_s: int, holder: str) -> None:
        super().__init__(store, GUARD, ttl_s, holder)

    async def acquire(self, status: Mapping[str, Any] | None = None) -> None:
        """Take it; LeaseHeldError naming every live writer (of any vault) when one is."""
        rows = await self.store.write(
            LEASE_REEMBED_ACQUIRE,
            guard=GUARD,
            holder=self.holder,
            host=self.host,
            pid=self.pid,
            ttl_s=self.ttl_s,
            status=dict(status or {}),
        )
        if not rows[0]["ok"]:
            raise LeaseHeldError(refused(rows[0]["holders"], self.ttl_s))

    async def release(self) -> None:
        await self.store.write(LEASE_REEMBED_RELEASE, guard=GUARD, holder=self.holder)
