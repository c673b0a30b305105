"""One lock per note, so writes to the same note never interleave inside a process.

A REST write is two steps — the file, then the graph — with awaits between them; two writes to
one note that interleave can leave the disk holding one version and the graph another. Every
writer in the process (the REST routes, the watcher) holds the note's lock from its first check
to its last graph write. Notes are keyed by their case-folded path (the key links resolve by),
so ``a.md`` and ``A.md`` share one lock and a case-variant check cannot race a write.

Across processes the vault's lease keeps a single graph writer; these locks order the writes
within the process that holds it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from knotwork.vault.files import fold


def note_key(rel: str) -> str:
    """The lock key of a vault-relative path: NFC, lower case."""
    return fold(rel)


class NoteLocks:
    """Locks created on demand and dropped when no task holds or awaits them."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def hold(self, *paths: str) -> AsyncIterator[None]:
        """Hold the locks of every path given (in key order, so two holders cannot deadlock)."""
        async with AsyncExitStack() as stack:
            for key in sorted({note_key(p) for p in paths}):
                await stack.enter_async_context(self._one(key))
            yield

    @asynccontextmanager
    async def _one(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(key, (None, 0))
        if lock is None:
            lock = asyncio.Lock()
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users <= 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)

    def __len__(self) -> int:
        """How many notes have a lock held or awaited now."""
        return len(self._locks)
