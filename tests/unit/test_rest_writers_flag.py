"""The REST writers' sync flag (serving/writers.py), no server: a sync that ends after a later
one began leaves the flag to the later one, so writes made during it are still queued."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

from knotwork.serving.writers import VaultWriters


def test_a_sync_leaving_the_lease_keeps_the_next_syncs_flag() -> None:
    async def scenario() -> list[bool]:
        core: Any = SimpleNamespace(settings=SimpleNamespace(vault_name="v"))
        writers = VaultWriters(core, journal=None)  # type: ignore[arg-type]
        leaving = asyncio.Event()

        @contextlib.asynccontextmanager
        async def held(mode: str) -> AsyncIterator[None]:
            yield
            await leaving.wait()  # the first sync gives the lease back slowly

        writers._held = held  # type: ignore[method-assign]
        seen: list[bool] = []

        async def first() -> None:
            async with writers.sync():
                writers.syncing = False  # what its drain does once the queue is empty

        async def second() -> None:
            async with writers.sync():
                await asyncio.sleep(0.05)  # the first one leaves meanwhile
                seen.append(writers.syncing)

        one = asyncio.create_task(first())
        await asyncio.sleep(0.01)  # drained, now leaving the lease
        two = asyncio.create_task(second())
        await asyncio.sleep(0.01)
        leaving.set()
        await asyncio.gather(one, two)
        seen.append(writers.syncing)
        return seen

    assert asyncio.run(scenario()) == [True, False]
