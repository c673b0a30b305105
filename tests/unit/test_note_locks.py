"""Per-note write locks: spellings of one note share a lock, other notes do not wait."""

from __future__ import annotations

import asyncio

from knotwork.vault.locks import NoteLocks


async def test_case_variants_share_one_lock_and_other_notes_do_not_wait() -> None:
    locks = NoteLocks()
    inside: list[str] = []
    overlaps: list[tuple[str, ...]] = []

    async def write(path: str) -> None:
        async with locks.hold(path):
            inside.append(path)
            overlaps.append(tuple(inside))
            await asyncio.sleep(0.01)
            inside.remove(path)

    await asyncio.gather(*(write(p) for p in ["People/Alice.md", "PEOPLE/ALICE.MD"] * 5))
    assert all(len(o) == 1 for o in overlaps), "one writer per note at a time"
    assert len(locks) == 0, "no lock is kept once nobody holds or awaits it"
    overlaps.clear()
    await asyncio.gather(write("Alice.md"), write("Bob.md"))
    assert max(len(o) for o in overlaps) == 2, "different notes do not wait for each other"


async def test_holding_two_notes_in_opposite_orders_does_not_deadlock() -> None:
    locks = NoteLocks()

    async def move(a: str, b: str) -> None:
        for _ in range(20):
            async with locks.hold(a, b):
                await asyncio.sleep(0)

    await asyncio.wait_for(asyncio.gather(move("a.md", "b.md"), move("B.md", "A.md")), 5)
    assert len(locks) == 0
