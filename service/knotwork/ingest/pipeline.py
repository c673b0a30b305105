"""A sync's notes through three overlapping stages: drafting, embedding, writing.

The notes go in units of ``UNIT`` notes. Drafting (states read, parse, chunk) runs ahead of the
writes; embedding takes one unit after another, in order, without waiting for a write; the
writer takes every unit embedded by the time it is free, up to ``KNOTWORK_INGEST_BATCH`` notes
in one transaction. So the writes grow as large as the batch setting when the writer is the
slower side (a fast embedder), and stay small when the embedder is (a model on the CPU): the
embedder never waits for a write, and the last write, which nothing overlaps, holds what was
embedded during the write before it.
"""

from __future__ import annotations

import asyncio

from knotwork.ingest.changes import Change, Drafted
from knotwork.ingest.ingestor import Ingestor

UNIT = 32  # notes drafted and embedded at a time (two embedding batches of two-chunk notes)


def units(changes: list[Change], batch: int) -> list[list[Change]]:
    """``changes`` cut into units of ``UNIT`` notes, or of ``batch`` when that is smaller."""
    size = max(1, min(UNIT, batch))
    return [changes[i : i + size] for i in range(0, len(changes), size)]


def merged(parts: list[Drafted]) -> Drafted:
    """Drafted units as one batch, in order."""
    if len(parts) == 1:
        return parts[0]
    out = Drafted({}, [], {}, [])
    for part in parts:
        out.states |= part.states
        out.outcomes += part.outcomes
        out.drafts |= part.drafts
        out.deletes += part.deletes
    return out


class Stages:
    """Drafting and embedding of ``units``, run ahead of the writes by about one write's worth
    of notes. A stage's failure is raised where its unit is taken."""

    def __init__(self, ingestor: Ingestor, units: list[list[Change]], batch: int) -> None:
        self.ingestor, self.units, self.batch = ingestor, units, batch
        self.ahead = -(-batch // UNIT) + 1  # units in flight beyond the one taken
        self.drafted: dict[int, asyncio.Task[Drafted]] = {}
        self.embedded: dict[int, asyncio.Task[Drafted]] = {}
        self.started = 0

    async def take(self, first: int) -> tuple[Drafted, int]:
        """Unit ``first`` once embedded, with the units after it already embedded (up to the
        batch size, never the last unit): the batch, and the unit after it."""
        self._start(first)
        parts = [await self.embedded.pop(first)]
        count, n = len(self.units[first]), first + 1
        while (
            n < len(self.units) - 1
            and n in self.embedded
            and self.embedded[n].done()
            and count + len(self.units[n]) <= self.batch
        ):
            parts.append(self.embedded.pop(n).result())
            count, n = count + len(self.units[n]), n + 1
        self._start(n)
        return merged(parts), n

    def _start(self, first: int) -> None:
        while self.started < min(first + 1 + self.ahead, len(self.units)):
            i = self.started
            self.drafted[i] = asyncio.create_task(self._draft(i, self.drafted.get(i - 1)))
            self.embedded[i] = asyncio.create_task(self._embed(i, self.embedded.get(i - 1)))
            self.started += 1

    async def _draft(self, i: int, previous: asyncio.Task[Drafted] | None) -> Drafted:
        if previous is not None:  # in order: the unit embedded next is drafted first
            await asyncio.wait([previous])
        return await self.ingestor.draft(self.units[i])

    async def _embed(self, i: int, previous: asyncio.Task[Drafted] | None) -> Drafted:
        drafted = await self.drafted.pop(i)
        if previous is not None:  # one embedding at a time, in order
            await asyncio.wait([previous])
        return await self.ingestor.embed(drafted)

    def cancel(self) -> None:
        for task in [*self.drafted.values(), *self.embedded.values()]:
            task.cancel()
