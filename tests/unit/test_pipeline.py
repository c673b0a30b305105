"""A sync's stages (ingest/pipeline.py): units drafted ahead, embedded one at a time in order,
and taken by the writer as they are ready, up to the batch size. The stages are driven by a
stand-in for the Ingestor's ``draft`` and ``embed`` that records their order: the scheduling
is what is under test here; the real stages run in tests/integration/test_ingest.py."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any, cast

import pytest

from knotwork.graph.names import NameIndex
from knotwork.ingest import pipeline
from knotwork.ingest.batch import Batch
from knotwork.ingest.changes import Change, Delete, Drafted, NoteOutcome, Prepared, Upsert
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.modelcalls import EmbedProgress


def notes(count: int) -> list[Change]:
    return [Upsert(f"n{i:03d}.md", f"# N{i}\n") for i in range(count)]


class Steps:
    """Draft and embed that log what they do; ``gate`` holds an embedding until released."""

    root = None  # no vault folder: the notes are drafted as given, never read again

    def __init__(self, fail_draft: str | None = None) -> None:
        self.log: list[tuple[str, str]] = []
        self.running = 0
        self.most = 0
        self.gate: dict[str, asyncio.Event] = {}
        self.fail_draft = fail_draft

    async def draft(self, changes: list[Change]) -> Drafted:
        first = changes[0].path if changes else "-"
        self.log.append(("draft", first))
        await asyncio.sleep(0)
        if first == self.fail_draft:
            raise RuntimeError(f"cannot draft {first}")
        return Drafted({}, [NoteOutcome(c.path, "written") for c in changes], {}, [])

    async def embed(self, drafted: Drafted, progress: EmbedProgress | None = None) -> Drafted:
        first = drafted.outcomes[0].path if drafted.outcomes else "-"
        self.running += 1
        self.most = max(self.most, self.running)
        self.log.append(("embed", first))
        if progress is not None:  # as ModelCalls.embed tells it: as it begins, then each slice
            progress(0, len(drafted.outcomes), first)
        if first in self.gate:
            await self.gate[first].wait()
        await asyncio.sleep(0)
        if progress is not None:
            progress(len(drafted.outcomes), len(drafted.outcomes), first)
        self.running -= 1
        return drafted


async def resolve(drafted: Drafted) -> Prepared:
    batch = Batch("v", NameIndex())
    return Prepared(batch, drafted.outcomes, drafted.drafts)


def stages(steps: Steps, cut: list[list[Change]], batch: int) -> pipeline.Stages:
    return pipeline.Stages(cast(Ingestor, steps), cut, batch, resolve)


def test_units_are_the_unit_size_or_the_batch_when_smaller() -> None:
    assert [len(u) for u in pipeline.units(notes(70), 200)] == [32, 32, 6]
    assert [len(u) for u in pipeline.units(notes(5), 2)] == [2, 2, 1]
    assert pipeline.units([], 200) == []


async def test_units_are_embedded_one_at_a_time_in_order() -> None:
    steps = Steps()
    cut = [*pipeline.units(notes(100), 200), [Delete("gone.md")]]
    run = stages(steps, cut, 200)
    run.start()
    taken: list[str] = []
    first = 0
    while first < len(cut):
        prepared, first = await run.take(first)
        taken += [o.path for o in prepared.outcomes]
    assert taken == [c.path for unit in cut for c in unit]  # every note once, in order
    embedded = [first for kind, first in steps.log if kind == "embed"]
    assert embedded == ["n000.md", "n032.md", "n064.md", "n096.md", "gone.md"]
    assert steps.most == 1


async def test_the_writer_takes_what_is_ready_up_to_the_batch_but_never_the_last_unit() -> None:
    steps = Steps()
    cut = [*pipeline.units(notes(128), 200), [Delete("gone.md")]]
    steps.gate["n000.md"] = asyncio.Event()
    run = stages(steps, cut, 70)
    run.start()
    waiting = asyncio.create_task(run.take(0))
    for _ in range(20):
        await asyncio.sleep(0)
    assert not waiting.done()  # the first unit is not embedded yet
    steps.gate["n000.md"].set()
    prepared, after = await waiting
    assert [o.path for o in prepared.outcomes][:1] == ["n000.md"]
    assert len(prepared.outcomes) <= 70
    sizes = [len(prepared.outcomes)]
    while after < len(cut):
        await asyncio.wait(list(run.ready.values()))  # everything after it is ready
        prepared, next_after = await run.take(after)
        sizes.append(len(prepared.outcomes))
        assert next_after == len(cut) or len(prepared.outcomes) <= 70
        after = next_after
    assert sizes == [32, 64, 32, 1]  # two ready units merged; the deletes alone


async def test_a_failed_stage_is_raised_where_its_unit_is_taken() -> None:
    steps = Steps(fail_draft="n032.md")
    cut = pipeline.units(notes(96), 200)
    run = stages(steps, cut, 32)
    run.start()
    try:
        prepared, after = await run.take(0)
        assert prepared.outcomes[0].path == "n000.md"
        with pytest.raises(RuntimeError, match=r"cannot draft n032\.md"):
            await run.take(after)
    finally:
        left = list(run.ready.values())
        run.cancel()
    ended = await asyncio.gather(*left, return_exceptions=True)
    assert left and all(isinstance(e, asyncio.CancelledError) for e in ended)  # none runs on


def test_merged_keeps_the_units_in_order() -> None:
    parts: list[Any] = []
    for unit in pipeline.units(notes(40), 16):
        outcomes = [NoteOutcome(c.path, "written") for c in unit]
        parts.append(Prepared(Batch("v", NameIndex()), outcomes, {}))
    merged = pipeline.merged(parts)
    assert [o.path for o in merged.outcomes] == [c.path for c in notes(40)]


async def test_only_the_first_unit_is_drafted_before_the_names_are_worked_out() -> None:
    steps = Steps()
    cut = pipeline.units(notes(96), 200)
    names: asyncio.Future[object] = asyncio.get_running_loop().create_future()
    run = pipeline.Stages(cast(Ingestor, steps), cut, 200, resolve, first_after=names)
    run.start()
    for _ in range(20):
        await asyncio.sleep(0)
    # The first unit goes on to the embedder; nothing else takes the interpreter meanwhile.
    assert steps.log == [("draft", "n000.md"), ("embed", "n000.md")]
    names.set_result(None)
    taken: list[str] = []
    first = 0
    while first < len(cut):
        prepared, first = await run.take(first)
        taken += [o.path for o in prepared.outcomes]
    assert taken == [c.path for unit in cut for c in unit]


async def test_each_units_embedding_is_told_with_its_unit() -> None:
    """A sync shows the embedding its writer waits for: each unit's count comes with the
    unit's index, the units embedded ahead of the writer included."""
    steps = Steps()
    told: list[tuple[int, int, int, str]] = []
    cut = [*pipeline.units(notes(40), 200), [Delete("gone.md")]]
    run = pipeline.Stages(
        cast(Ingestor, steps), cut, 200, resolve, embedding=lambda *call: told.append(call)
    )
    run.start()
    first = 0
    while first < len(cut):
        _, first = await run.take(first)
    assert told == [
        (0, 0, 32, "n000.md"),
        (0, 32, 32, "n000.md"),
        (1, 0, 8, "n032.md"),
        (1, 8, 8, "n032.md"),
        (2, 0, 1, "gone.md"),
        (2, 1, 1, "gone.md"),
    ]


def _read(root: Path, path: str, text: str) -> Upsert:
    """An upsert as a sync reads it: the file written with ``text``, then its mtime taken."""
    (root / path).write_text(text)
    return Upsert(path, text, (root / path).stat().st_mtime)


def _later(root: Path, path: str, text: str) -> None:
    """The file rewritten after the sync read it, its mtime moved on (a coarse clock may not)."""
    file = root / path
    before = file.stat().st_mtime
    file.write_text(text)
    os.utime(file, (before + 1, before + 1))


def test_a_note_edited_since_the_sync_read_it_is_drafted_as_it_is_now(tmp_path: Path) -> None:
    kept, edited = _read(tmp_path, "a.md", "# A\n\nOld.\n"), _read(tmp_path, "b.md", "# B\n\nX\n")
    _later(tmp_path, "b.md", "# B\n\nNew.\n")
    gone = Delete("c.md")
    now = pipeline.as_now(tmp_path, [kept, edited, gone], 1_000_000)
    assert now[0] is kept and now[2] is gone
    assert isinstance(now[1], Upsert) and now[1].text == "# B\n\nNew.\n"
    assert now[1].note is not None and now[1].mtime == (tmp_path / "b.md").stat().st_mtime


@pytest.mark.parametrize(
    "later",
    [
        "---\naliases: [Bee]\n---\n# B\n\nNew.\n",  # its names changed: others resolved on them
        "# B\n\n" + "x" * 2000,  # over the size limit now: its own change says so
        None,  # gone since: its own change deletes it
    ],
    ids=["names", "too-large", "gone"],
)
def test_a_note_edited_since_the_sync_read_it_is_kept_as_read_when(
    tmp_path: Path, later: str | None
) -> None:
    read = _read(tmp_path, "b.md", "# B\n\nOld.\n")
    if later is None:
        (tmp_path / "b.md").unlink()
    else:
        _later(tmp_path, "b.md", later)
    assert pipeline.as_now(tmp_path, [read], 1000) == [read]
