"""The API's writers give the shared lease back even when the last user is cancelled mid-way
(a server's stop), but a give-back that hangs holds a cancelled caller at most LEAVE_WAIT_S,
and a second cancel ends that wait at once: the release was waited for in a loop no cancel
could end, bounded only by the driver's time-outs."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from knotwork.core import Core
from knotwork.graph.lease import lease_status
from knotwork.ingest.journal import Journal
from knotwork.serving import writers as writers_module
from knotwork.serving.writers import VaultWriters

BOUND_S = 0.5  # LEAVE_WAIT_S in these tests


async def _inside(writers: VaultWriters) -> asyncio.Task[None]:
    """A pass of the model's work holding the lease until cancelled."""
    entered = asyncio.Event()

    async def model_pass() -> None:
        async with writers.model_pass():
            entered.set()
            await asyncio.Event().wait()

    task = asyncio.create_task(model_pass())
    await asyncio.wait_for(entered.wait(), 30)
    return task


async def _live(core: Core, vault: str) -> bool:
    return bool((await lease_status(core.store, vault) or {}).get("live"))


async def _given_back(core: Core, writers: VaultWriters) -> None:
    deadline = time.monotonic() + 30
    while await _live(core, writers.vault):
        assert time.monotonic() < deadline, "the lease was never given back"
        await asyncio.sleep(0.05)


async def test_a_give_back_that_hangs_holds_a_cancelled_caller_only_to_the_bound(
    core: Core, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writers_module, "LEAVE_WAIT_S", BOUND_S)
    writers = VaultWriters(core, Journal(tmp_path / "journal"))
    task = await _inside(writers)
    await writers._turn.acquire()  # the give-back hangs: it waits for its turn
    try:
        began = time.monotonic()
        task.cancel()
        await asyncio.wait([task], timeout=BOUND_S + 5)
        assert task.done(), "the cancelled caller was held past the bound"
        assert time.monotonic() - began >= BOUND_S * 0.9  # it did wait for the give-back
        assert task.cancelled()
        assert await _live(core, writers.vault)  # not given back yet: it runs on alone
    finally:
        writers._turn.release()
    await _given_back(core, writers)  # once it can, the give-back ends: the lease is free


async def test_a_second_cancel_ends_the_wait_for_the_give_back(core: Core, tmp_path: Path) -> None:
    writers = VaultWriters(core, Journal(tmp_path / "journal"))
    task = await _inside(writers)
    await writers._turn.acquire()
    try:
        task.cancel()
        await asyncio.sleep(0.2)  # in the wait for the give-back
        assert not task.done()
        began = time.monotonic()
        task.cancel()
        await asyncio.wait([task], timeout=writers_module.LEAVE_WAIT_S * 2)
        assert task.done() and time.monotonic() - began < writers_module.LEAVE_WAIT_S / 2
    finally:
        writers._turn.release()
    await _given_back(core, writers)


async def test_a_single_cancel_still_gives_the_lease_back(core: Core, tmp_path: Path) -> None:
    writers = VaultWriters(core, Journal(tmp_path / "journal"))
    task = await _inside(writers)
    assert await _live(core, writers.vault)
    task.cancel()
    await asyncio.wait([task], timeout=30)
    assert task.cancelled() and not await _live(core, writers.vault)


async def test_a_cancel_landing_as_the_lease_is_let_go_ends_the_holder(
    core: Core, tmp_path: Path
) -> None:
    """A stop whose cancel lands while the block's lease heartbeat is being waited out (the
    block just ended, as a replay's does) ends the holder: it was taken for the heartbeat's
    own cancel and swallowed, the holder ran on, and a server's stop, which waits for its
    replay task to end, waited forever."""
    writers = VaultWriters(core, Journal(tmp_path / "journal"))
    after: list[str] = []

    async def replay() -> None:
        async with writers.write():
            this = asyncio.current_task()
            assert this is not None
            this.cancel()  # delivered at the block's next await: the heartbeat's end
        after.append("ran on after its cancel")
        await asyncio.Event().wait()

    task = asyncio.create_task(replay())
    await asyncio.wait([task], timeout=10)
    ended = task.done()
    task.cancel()  # what the stop would have needed (a second cancel), so the test ends
    await asyncio.wait([task], timeout=10)
    assert ended and not after, "a cancel that landed as the lease was let go was swallowed"
    await _given_back(core, writers)
