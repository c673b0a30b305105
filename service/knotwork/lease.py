"""One writer per vault: a lease node in Neo4j, renewed by its holder's heartbeat.

A second watcher (or any writer that asks) is refused while the lease is live, with a message
naming the holder; a crashed holder's lease lapses after ``lease_ttl_s``.
"""

from __future__ import annotations

import os
import socket
import uuid
from typing import Any

from knotwork.errors import LeaseHeldError
from knotwork.graph import GraphStore


class Lease:
    def __init__(self, store: GraphStore, vault: str, ttl_s: int) -> None:
        self.store, self.vault, self.ttl_s = store, vault, ttl_s
        self.host, self.pid = socket.gethostname(), os.getpid()
        self.holder = f"{self.host}:{self.pid}:{uuid.uuid4().hex[:8]}"

    async def acquire(self, status: dict[str, Any] | None = None) -> None:
        """Take or renew the lease; LeaseHeldError when another live holder has it."""
        rows = await self.store.write(
            "lease_acquire",
            vault=self.vault,
            holder=self.holder,
            host=self.host,
            pid=self.pid,
            ttl_s=self.ttl_s,
            status=status or {},
        )
        row = rows[0]
        if not row["ok"]:
            raise LeaseHeldError(
                f"vault {self.vault!r} is being written by {row['holder']} (host {row['host']}, "
                f"pid {row['pid']}, last heartbeat {row['heartbeat_at']}); only one writer per "
                f"vault. Stop that watcher, or wait {self.ttl_s} s after it died."
            )

    renew = acquire

    async def release(self) -> None:
        await self.store.write("lease_release", vault=self.vault, holder=self.holder)


async def lease_status(store: GraphStore, vault: str) -> dict[str, Any] | None:
    """The lease and the watcher status its holder last reported, or None."""
    rows = await store.read("lease_get", vault=vault)
    return {**rows[0]["lease"], "live": rows[0]["live"]} if rows else None
