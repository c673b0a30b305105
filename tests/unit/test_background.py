"""knotwork.background.stop: every task ended, failures raised, cancellations swallowed."""

from __future__ import annotations

import asyncio

import pytest

from knotwork import background


async def _forever(ended: list[str], name: str) -> None:
    try:
        await asyncio.Event().wait()
    finally:
        ended.append(name)


async def test_every_task_is_cancelled_and_has_ended_when_stop_returns() -> None:
    ended: list[str] = []
    first = asyncio.create_task(_forever(ended, "first"))
    second = asyncio.create_task(_forever(ended, "second"))
    await asyncio.sleep(0)
    await background.stop(first, None, second)
    assert sorted(ended) == ["first", "second"]
    assert first.cancelled() and second.cancelled()


async def test_a_failure_is_raised_after_the_other_tasks_have_ended() -> None:
    ended: list[str] = []

    async def broken() -> None:
        raise RuntimeError("replay broke")

    failed = asyncio.create_task(broken())
    await asyncio.sleep(0)  # it has failed before the stop
    running = asyncio.create_task(_forever(ended, "running"))
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="replay broke"):
        await background.stop(failed, running)
    assert ended == ["running"] and running.cancelled()


async def test_a_task_that_finished_is_no_error() -> None:
    async def quick() -> int:
        return 1

    done = asyncio.create_task(quick())
    await done
    await background.stop(done)


async def test_the_callers_own_cancellation_goes_through() -> None:
    ended: list[str] = []
    stubborn_started = asyncio.Event()

    async def stubborn() -> None:
        stubborn_started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            await asyncio.sleep(10)  # slow to end: the caller is cancelled meanwhile
            raise
        finally:
            ended.append("stubborn")

    task = asyncio.create_task(stubborn())
    await stubborn_started.wait()
    caller = asyncio.create_task(background.stop(task))
    await asyncio.sleep(0.01)
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert caller.cancelled()
    await asyncio.gather(task, return_exceptions=True)
    assert ended == ["stubborn"]  # the gather passed the cancellation on: the task ended too
