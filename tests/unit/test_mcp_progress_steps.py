"""What an MCP tool call's progress says when its work runs faster than the sender looks: the
latest message of each step is sent, in order, so a step begun and done between two looks still
says its last count; within one step only the latest is sent."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from typing import Any, cast

from knotwork.mcp.progress import NUDGE, Progress


class _Context:
    def __init__(self) -> None:
        self.sent: list[tuple[float, str | None]] = []

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        self.sent.append((progress, message))


async def _sent_after(progress: Progress, heartbeat_s: float = 60.0) -> _Context:
    ctx = _Context()
    task = asyncio.create_task(progress.send(cast(Any, ctx), heartbeat_s, 0.01))
    await asyncio.sleep(0.05)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    return ctx


async def test_a_step_done_between_two_looks_still_says_its_last_count() -> None:
    progress = Progress()
    progress.tell("syncing the vault folder")
    for done in range(1, 41):
        progress.counted(done, 40, f"writing notes: N{done}.md")
    for done in range(1, 6):
        progress.counted(done, 5, "writing mentions and links")
    ctx = await _sent_after(progress)
    assert [m for _, m in ctx.sent] == [
        "syncing the vault folder",
        "writing notes: 40 of 40: N40.md",
        "writing mentions and links: 5 of 5",
    ]
    assert [p for p, _ in ctx.sent] == [1, 2, 3]  # progress grows with each notification


async def test_the_last_message_is_said_again_while_nothing_new_comes() -> None:
    progress = Progress()
    progress.tell("answering from 4 chunks of evidence")
    ctx = await _sent_after(progress, heartbeat_s=0.01)
    messages = [m for _, m in ctx.sent]
    assert len(messages) >= 2 and set(messages) == {"answering from 4 chunks of evidence"}
    assert [p for p, _ in ctx.sent] == list(range(1, len(messages) + 1))


async def test_nothing_is_sent_before_anything_is_told() -> None:
    assert (await _sent_after(Progress(), heartbeat_s=0.0)).sent == []


async def test_what_was_told_after_the_last_look_is_said_before_the_result() -> None:
    progress = Progress()
    progress.tell("syncing the vault folder")
    ctx = await _sent_after(progress)
    progress.counted(3, 3, "writing notes: C.md")
    await progress.finish(cast(Any, ctx))
    assert ctx.sent == [(1, "syncing the vault folder"), (2, "writing notes: 3 of 3: C.md")]


async def test_steps_taking_turns_batch_after_batch_are_each_sent_once_a_look() -> None:
    progress = Progress()
    for batch in range(1, 51):
        for step in ("embedding chunks", "writing notes", "extracting facts from chunks"):
            progress.counted(batch, 50, step)
    ctx = await _sent_after(progress)
    assert [m for _, m in ctx.sent] == [
        "embedding chunks: 50 of 50",
        "writing notes: 50 of 50",
        "extracting facts from chunks: 50 of 50",
    ]


class _SlowContext(_Context):
    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        await asyncio.sleep(0.2)  # a slow transport: the call ends while this look is sent
        await super().report_progress(progress, total, message)


async def test_what_a_look_took_unsent_when_the_call_ended_is_sent_before_the_result() -> None:
    progress = Progress()
    for step in ("reading notes", "embedding chunks", "writing notes"):
        progress.counted(5, 5, step)
    ctx = _SlowContext()
    task = asyncio.create_task(progress.send(cast(Any, ctx), 60.0, 0.01))
    await asyncio.sleep(0.05)  # the look took all three; the first is being sent
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await progress.finish(cast(Any, ctx))
    said = [m for _, m in ctx.sent]
    assert said[-2:] == ["embedding chunks: 5 of 5", "writing notes: 5 of 5"], said
    numbers = [p for p, _ in ctx.sent]
    assert numbers == sorted(set(numbers)), numbers  # progress grows with each notification


class _Totals(_Context):
    def __init__(self) -> None:
        super().__init__()
        self.totals: list[float | None] = []

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        self.totals.append(total)
        await super().report_progress(progress, total, message)


async def _looked(progress: Progress, ctx: _Totals, heartbeat_s: float = 60.0) -> None:
    """One stretch of the sender's looks into ``ctx``, as ``_sent_after`` runs them."""
    task = asyncio.create_task(progress.send(cast(Any, ctx), heartbeat_s, 0.01))
    await asyncio.sleep(0.05)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def test_a_sized_call_sends_notes_written_of_their_total_and_nudges_between() -> None:
    """The numbers of a sync's notifications, each kept from the one before: a nudge until the
    total is known, the notes written (under the total while the call runs), a nudge for each
    other step's notification and each heartbeat, the total itself once the call ends."""
    progress, ctx = Progress(sized=True), _Totals()
    progress.tell("syncing the vault folder")
    progress.counted(3, 9, "reading notes: a.md")  # files, not notes to write: no total
    await _looked(progress, ctx)
    progress.counted(2, 4, "writing notes: b.md")
    await _looked(progress, ctx)
    progress.counted(4, 4, "writing notes: d.md")
    progress.counted(1, 1, "linking similar entities")
    await _looked(progress, ctx)
    beats = len(ctx.sent)
    await _looked(progress, ctx, heartbeat_s=0.0)  # nothing new: the last said again
    beats = len(ctx.sent) - beats
    await progress.finish(cast(Any, ctx))
    linking = "linking similar entities: 1 of 1"
    assert [m for _, m in ctx.sent] == [
        "syncing the vault folder",
        "reading notes: 3 of 9: a.md",
        "writing notes: 2 of 4: b.md",
        "writing notes: 4 of 4: d.md",
        *[linking] * (1 + beats),
        linking,
    ]
    nudged = list(itertools.accumulate([NUDGE] * (beats + 1), initial=3.5))[1:]  # as summed
    assert beats >= 1 and [p for p, _ in ctx.sent] == [0.0, NUDGE, 2.0, 3.5, *nudged, 4.0]
    assert ctx.totals == [None, None, *[4.0] * (beats + 4)]
