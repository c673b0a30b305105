"""A whole vault into the graph: what ingest/plan.py found new, changed, moved or gone, applied.

The changed notes are written in batches of up to ``KNOTWORK_INGEST_BATCH`` notes, one
set-based transaction each, drafted and embedded ahead of the writes (ingest/pipeline.py), so
that a model doing the embedding never waits for a write. Mentions and links are resolved
against the vault's names as they will be once the whole sync is applied, so a note written
early already mentions and links to notes written later (a placeholder node their own batch
fills) and nothing is moved again; the notes the sync does not write get their mentions of
changed names rewritten, and their links to the keys of new notes re-resolved, once, at the end.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

from knotwork.errors import (
    ConfigError,
    GraphUnavailableError,
    KnotworkError,
    ManifestMismatchError,
)
from knotwork.ingest import pipeline, settle, write
from knotwork.ingest.batch import Batch
from knotwork.ingest.changes import (
    Change,
    Delete,
    Drafted,
    NoteOutcome,
    Prepared,
    Progress,
    SyncReport,
    SyncStep,
    Upsert,
)
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.plan import Plan, plan_sync
from knotwork.ingest.written import BatchProgress
from knotwork.plural import counted, plural

log = logging.getLogger(__name__)
__all__ = ["Progress", "SyncReport", "sync_vault"]  # the report types live in ingest/changes.py


async def sync_vault(
    ingestor: Ingestor,
    progress: Progress | None = None,
    *,
    new_folder: bool = False,
    report: SyncReport | None = None,
    path: Path | None = None,
) -> SyncReport:
    """Bring the graph in step with the vault folder, a batch of notes per transaction.
    ``new_folder``: the folder replaces the one the vault was synced from (plan_sync).
    ``report``: filled in as the sync goes, so a caller it stops (a signal, Neo4j gone) still
    reads what was committed. ``path``: the vault path ``ingestor.root`` was resolved from (a
    watcher's symbolic link), when not that root itself."""
    if ingestor.root is None:
        raise ConfigError("no vault folder: set KNOTWORK_VAULT_PATH or pass a path")
    path = path or ingestor.root
    ingestor = pinned(ingestor)
    report = report if report is not None else SyncReport()
    began = time.monotonic()
    shown = _Shown(progress, report)
    upserts, deletes, planned = await plan_sync(
        ingestor, report, progress, new_folder, shown.parsed, path
    )
    shown.total = len(upserts) + len(deletes)
    plan = await _apply(ingestor, report, upserts, deletes, planned, shown)
    await settle.drop_placeholders(ingestor.core.store, ingestor.vault, plan.names)
    shown.step(SyncStep.LINKING)  # their names embedded: a model's time
    report.linked = await ingestor.link_entities()
    await ingestor.models.said_after(began)  # a model trouble it met: the total that waits
    return report


def pinned(ingestor: Ingestor) -> Ingestor:
    """``ingestor`` reading, for one sync, from the folder its vault path leads to now: a
    link on the path re-pointed meanwhile (``ln -sfn``) would have the sync list and read
    part of the notes in one folder, part in the other (taken for gone, moved, or written
    with the other's text). The ingestor itself when no link is on the path."""
    assert ingestor.root is not None
    try:
        root = ingestor.root.resolve()
    except (OSError, RuntimeError):  # a loop of links: the sync says the folder unseen
        return ingestor
    if root == ingestor.root.absolute():
        return ingestor
    run = copy.copy(ingestor)  # the same core, models and settings; only the root differs
    run.root = root
    return run


async def _apply(
    ingestor: Ingestor,
    report: SyncReport,
    upserts: list[Upsert],
    deleted: list[str],
    planned: asyncio.Task[Plan],
    shown: _Shown,
) -> Plan:
    size = ingestor.settings.ingest_batch
    # The last unit deletes what is gone and rewrites the other notes' mentions.
    writes: list[Change] = list(upserts)
    deletes: list[Change] = [Delete(p) for p in deleted]
    cut = [*pipeline.units(writes, size), deletes]
    exclude = sorted(u.path for u in upserts)

    def advance(outcomes: list[NoteOutcome]) -> None:
        for outcome in outcomes:
            report.add(outcome)

    async def prepare(batch: list[Change]) -> Prepared:
        return await ingestor.prepare(batch, plan.names)

    async def resolve(drafted: Drafted) -> Prepared:
        return await ingestor.resolve(drafted, (await planned).names)

    ingestor.core.names.pop(ingestor.vault, None)  # re-read by whoever edits after the sync
    stages = pipeline.Stages(ingestor, cut, size, resolve, planned, shown.embedded)
    stages.start()  # the first unit is drafted and embedded while the names are worked out
    try:
        shown.awaiting(0, cut[0])
        plan = await planned
        first = 0
        owes = any(plan.record.values())
        while first < len(cut):
            shown.awaiting(first, cut[first])
            prepared, after = await stages.take(first)
            batch = [change for unit in cut[first:after] for change in unit]
            last = after == len(cut)
            if last:
                prepared.batch.reverse_keys, prepared.batch.exclude = plan.reverse_keys, exclude
                prepared.batch.link_keys = plan.link_keys
                if owes or plan.owed:  # paid here: the record goes
                    prepared.batch.owed = {"reverse": [], "links": []}
                if plan.upserts or plan.deletes or plan.owed:  # caches re-read
                    prepared.batch.names_token = uuid.uuid4().hex
                    ingestor.core.names.pop(ingestor.vault, None)
            else:  # a rename's batch leaves the mentions of notes going to their delete
                prepared.batch.exclude = deleted
                if first == 0 and owes:  # recorded before anything the last batch settles
                    prepared.batch.owed = plan.record
            if not last and (prepared.batch.writes or prepared.batch.deletes):
                # Names change with every batch: a sync cut off after it leaves no process
                # (this one included) trusting the names it cached before.
                prepared.batch.names_token = uuid.uuid4().hex
            record = plan.record if owes and (first == 0 or last) else None
            shown.writing(batch)
            advance(await _commit(ingestor, report, prepared, batch, prepare, last, record, shown))
            first = after
    finally:
        stages.cancel()
        planned.cancel()
    return plan


async def _commit(
    ingestor: Ingestor,
    report: SyncReport,
    prepared: Prepared,
    batch: list[Change],
    prepare: Callable[[list[Change]], Awaitable[Prepared]],
    last: bool,
    record: dict[str, list[str]] | None,
    shown: BatchProgress,
) -> list[NoteOutcome]:
    """Write a prepared batch; when it fails, note by note, so one bad note costs itself only.

    ``last``: the sync's last batch, which moves other notes' mentions and links, clears the
    sync's record and stamps the names token after its notes. ``record``: what the sync owes
    if cut off, written before the notes go one by one (by a first or a last batch).
    ``shown``: told the notes written and each chunk extracted, for this sync's progress alone
    (the ingestor is shared with the API and the watcher)."""
    b = prepared.batch
    try:
        return await ingestor.commit(prepared, shown)
    except GraphUnavailableError:
        raise
    except KnotworkError as exc:
        if not batch or (len(batch) == 1 and not (last or record)):
            report.errors.append(f"{batch[0].path if batch else 'sync'}: {exc}")
            return []
        log.warning(
            "a batch of %s failed (%s); writing %s one by one",
            counted(len(batch), "note"),
            exc,
            plural(len(batch), "it", "them"),
        )
    store = ingestor.core.store
    if record:  # cut off on the way, the next sync pays it
        await _reported(
            report,
            "the sync's record of what it owes other notes",
            write.write_batch(store, Batch(b.vault, b.targets, owed=record)),
        )
    outcomes: list[NoteOutcome] = []
    for change in batch:
        try:
            outcomes += await ingestor.commit(await prepare([change]), shown)
        except (GraphUnavailableError, ManifestMismatchError):  # no note would go: stop
            raise
        except KnotworkError as exc:
            report.errors.append(f"{change.path}: {exc}")
    if not last and b.names_token and outcomes:  # names changed: other caches go stale
        await _reported(
            report,
            f"the names stamp after {counted(len(outcomes), 'note')}",
            write.write_batch(store, Batch(b.vault, b.targets, names_token=b.names_token)),
        )
    if last:  # the record, if any, is written: cut off here, the next sync pays it
        prepared.batch.writes, prepared.batch.deletes = [], []
        await _reported(  # no progress: its outcomes are the batch's, refused notes too
            report,
            "mentions and links of renamed, new or deleted notes",
            ingestor.commit(prepared),
        )
    return outcomes


class _Shown:
    """A sync's progress: the step its writer waits for, counted in that step's own unit.
    Its notes' chunks embedded (a unit of notes at a time: the chunks of a note of 1,500
    sections are counted, not the note), parsed when their embedding has not begun, written
    (counted as each batch's write lands, a batch that fails and is written again note by
    note counted once), then the chunks of that batch the model has extracted facts from. The
    units embedded ahead while the writer writes or the model extracts are not shown: what
    the bar shows is what the sync waits for."""

    def __init__(self, progress: Progress | None, report: SyncReport) -> None:
        self.progress, self.report, self.total = progress, report, 0
        self.waits: int | None = None  # the unit the writer waits for
        self.units: dict[int, tuple[int, int, str]] = {}  # each unit's embedding, as told
        self.shown: tuple[int, int, str] | None = None

    def _show(self, done: int, of: int, what: str) -> None:
        if self.progress and (done, of, what) != self.shown:  # a wait told twice, once
            self.shown = (done, of, what)
            self.progress(done, of, what)

    def awaiting(self, unit: int, changes: list[Change]) -> None:
        """The writer waits for ``unit`` (drafted, then embedded, ahead of it)."""
        self.waits = unit
        if unit in self.units:  # embedding, or embedded: shown until done
            if (told := self.units[unit])[0] < told[1]:
                self.embedded(unit, *told)
        elif upserts := [c.path for c in changes if isinstance(c, Upsert)]:
            self._show(self.report.committed, self.total, SyncStep.PARSING.told(upserts[0]))

    def parsed(self, done: int, of: int, path: str) -> None:
        """The notes parsed for the sync's final names, which the first write waits for with
        the first unit's embedding: both are said as they move, the bar never still on its
        first note for the seconds a large vault's parse takes."""
        embedding = self.units.get(0)
        if self.waits in (None, 0) and not (embedding and embedding[0] < embedding[1]):
            self._show(done, of, SyncStep.NAMING.told(path))

    def embedded(self, unit: int, done: int, of: int, path: str) -> None:
        self.units[unit] = (done, of, path)
        if unit == self.waits:
            self._show(done, of, SyncStep.EMBEDDING.told(path))

    def writing(self, batch: list[Change]) -> None:
        self.waits = None
        what = SyncStep.WRITING.told(batch[0].path) if batch else SyncStep.LINKS.told()
        self._show(self.report.committed, self.total, what)

    def written(self, outcomes: list[NoteOutcome]) -> None:
        committed = self.report.committed_notes  # the stop line's count: one, not two
        for outcome in outcomes:
            if outcome.path not in committed:
                committed.add(outcome.path)
                gone = " (deleted)" if outcome.status == "deleted" else ""
                self._show(
                    len(committed), self.total, SyncStep.WRITING.told(f"{outcome.path}{gone}")
                )

    def extracted(self, tried: int, of: int) -> None:
        self._show(tried, of, SyncStep.EXTRACTING.told())

    def step(self, step: SyncStep) -> None:
        """A step of the sync's end, counted in nothing finer than the notes done."""
        self._show(self.report.committed, self.total, step.told())


async def _reported(report: SyncReport, what: str, work: Awaitable[object]) -> None:
    """A write beside a batch's notes whose failure is reported, not raised; Neo4j out of
    reach still stops the sync."""
    try:
        await work
    except GraphUnavailableError:
        raise
    except KnotworkError as exc:
        report.errors.append(f"{what}: {exc}")
