"""A sync's notes through overlapping stages: drafting, embedding, resolving, writing.

The notes go in units of ``UNIT`` notes. Drafting (states read, parse, chunk) runs ahead of the
writes; embedding takes one unit after another, in order, without waiting for a write; each
embedded unit's mentions and links are resolved beside it; the writer takes every unit ready
by the time it is free, up to ``KNOTWORK_INGEST_BATCH`` notes in one transaction. So writes
grow to the batch setting when the writer is the slower side (a fast embedder) and stay small
when the embedder is (a model on the CPU): the embedder never waits for a write, and the last
write, which nothing overlaps, holds what was embedded during the write before it.

Only the first unit is drafted before ``first_after`` (the sync's final names, which parse every
note) is done: the writer cannot start before it, and drafting ahead would share the
interpreter with that parse and hold the first write back (bench/RESULTS.md, "Ingest: the
writer's first batch sooner"); the first unit keeps a model embedder busy meanwhile.

Each note is drafted as it is on disk when its unit is drafted (``as_now``), not as the sync
read it: a large vault's notes wait minutes for their turn, and a note edited meanwhile would be
written as read, then again by the edit's own write (a watcher's change queued during its
rescan), embedded and extracted twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from knotwork.errors import KnotworkError
from knotwork.ingest.changes import Change, Drafted, Prepared, Upsert
from knotwork.ingest.draft import parse
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.rows import note_props
from knotwork.vault.files import read_note

UNIT = 32  # notes drafted and embedded at a time (two embedding batches of two-chunk notes)
T = TypeVar("T")
# Told (unit, texts embedded, of how many, the note under way) as each unit's embedding goes:
# a sync shows the one its writer waits for.
UnitEmbedding = Callable[[int, int, int, str], None]


def units(changes: list[Change], batch: int) -> list[list[Change]]:
    """``changes`` cut into units of ``UNIT`` notes, or of ``batch`` when that is smaller."""
    size = max(1, min(UNIT, batch))
    return [changes[i : i + size] for i in range(0, len(changes), size)]


def merged(parts: list[Prepared]) -> Prepared:
    """Prepared units of a sync (resolved against its final names) as one batch, in order."""
    if len(parts) == 1:
        return parts[0]
    first = parts[0]
    batch = replace(
        first.batch,
        writes=[w for p in parts for w in p.batch.writes],
        deletes=[d for p in parts for d in p.batch.deletes],
    )
    outcomes = [o for p in parts for o in p.outcomes]
    return Prepared(batch, outcomes, {k: d for p in parts for k, d in p.drafts.items()})


class Stages:
    """Drafting, embedding and resolving of ``units``, run ahead of the writes by about one
    write's worth of notes. A stage's failure is raised where its unit is taken."""

    def __init__(
        self,
        ingestor: Ingestor,
        units: list[list[Change]],
        batch: int,
        resolve: Callable[[Drafted], Awaitable[Prepared]],
        first_after: asyncio.Future[Any] | None = None,
        embedding: UnitEmbedding | None = None,
    ) -> None:
        self.ingestor, self.units, self.batch, self.resolve = ingestor, units, batch, resolve
        self.first_after = first_after  # drafting beyond the first unit waits for it
        self.embedding = embedding
        self.ahead = -(-batch // UNIT) + 1  # units in flight beyond the one taken
        # Per unit started and not taken: its drafting, embedding and resolving.
        self.tasks: dict[int, tuple[asyncio.Task[Drafted], ...]] = {}
        self.ready: dict[int, asyncio.Task[Prepared]] = {}
        self.last: tuple[asyncio.Task[Drafted] | None, asyncio.Task[Drafted] | None] = (None, None)
        self.started = 0

    def start(self) -> None:
        """Draft and embed the first units now, before any is taken."""
        self._start(0)

    async def take(self, first: int) -> tuple[Prepared, int]:
        """Unit ``first`` once ready, with the units after it ready by then (up to the batch
        size, never the last unit): the batch to write, and the unit after it."""
        self._start(first)
        parts = [await self._taken(first)]
        count, n = len(self.units[first]), first + 1
        while (
            n < len(self.units) - 1
            and n in self.ready
            and self.ready[n].done()
            and count + len(self.units[n]) <= self.batch
        ):
            parts.append(await self._taken(n))
            count, n = count + len(self.units[n]), n + 1
        self._start(n)
        return merged(parts), n

    async def _taken(self, i: int) -> Prepared:
        del self.tasks[i]
        return await self.ready.pop(i)

    def _start(self, first: int) -> None:
        while (i := self.started) < min(first + 1 + self.ahead, len(self.units)):
            self.started += 1
            drafted = asyncio.create_task(self._draft(i, self.last[0]))
            embedded = asyncio.create_task(self._embed(i, drafted, self.last[1]))
            self.ready[i] = asyncio.create_task(self._resolve(embedded))
            self.tasks[i], self.last = (drafted, embedded), (drafted, embedded)

    async def _draft(self, i: int, previous: asyncio.Task[Drafted] | None) -> Drafted:
        await _after(previous)  # in order: the unit embedded next is drafted first
        if i > 0:
            await _after(self.first_after)
        # In place: ``units`` is the sync's ``cut``, whose notes it writes again one by one.
        if (root := self.ingestor.root) is not None:
            limit = self.ingestor.settings.max_note_bytes
            self.units[i] = await asyncio.to_thread(as_now, root, self.units[i], limit)
        return await self.ingestor.draft(self.units[i])

    async def _embed(
        self, i: int, drafted: asyncio.Task[Drafted], previous: asyncio.Task[Drafted] | None
    ) -> Drafted:
        ready = await drafted
        await _after(previous)  # one embedding at a time, in order
        told = functools.partial(self.embedding, i) if self.embedding is not None else None
        return await self.ingestor.embed(ready, told)

    async def _resolve(self, embedded: asyncio.Task[Drafted]) -> Prepared:
        return await self.resolve(await embedded)

    def cancel(self) -> None:
        """Stop what is still running; failures nobody took are dropped with it."""
        for task in [t for ts in self.tasks.values() for t in ts] + list(self.ready.values()):
            task.cancel()
            if task.done() and not task.cancelled():
                with contextlib.suppress(BaseException):
                    task.exception()  # retrieved: no "never retrieved" noise at exit


def as_now(root: Path, changes: list[Change], max_bytes: int) -> list[Change]:
    """``changes`` with each note whose file changed since the sync read it (its modification
    time moved, its text differs) as the file is now. Kept as read when its names (title,
    aliases) changed: the sync resolved the other notes' mentions and links against those it
    read; or when it cannot be read cleanly now (gone, binary, bytes replaced): its own change,
    or the next sync, writes it and says why. Blocking: run off the event loop."""
    return [_now(root, c, max_bytes) if isinstance(c, Upsert) else c for c in changes]


def _now(root: Path, change: Upsert, max_bytes: int) -> Upsert:
    if change.mtime is None:  # not read from the folder
        return change
    try:
        if os.stat(root / change.path).st_mtime == change.mtime:
            return change
        read = read_note(root, change.path, max_bytes)
    except (OSError, KnotworkError):
        return change
    if read.warnings or read.text == change.text:
        return change
    note = parse(change.path, read.text)
    before = change.note or parse(change.path, change.text)
    if note_props(note, None)["mkeys"] != note_props(before, None)["mkeys"]:
        return change
    return replace(change, text=read.text, mtime=read.mtime, note=note)


async def _after(previous: asyncio.Future[T] | None) -> None:
    """Once ``previous`` has ended, however it ended (its own unit reports its failure)."""
    if previous is not None:
        await asyncio.wait([previous])
