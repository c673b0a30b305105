"""A whole vault into the graph: find what is new, changed, moved or gone, and apply it.

The changed notes are written in batches of ``KNOTWORK_INGEST_BATCH`` notes, one set-based
transaction each, in three overlapping stages: drafting (parse, chunk) runs ahead, embedding
goes from batch to batch without a pause, and each batch's mentions are resolved and its rows
written once it is embedded — so with a model doing the embedding, the sync runs at nearly the
model's own pace. Mentions and links are resolved against the vault's names as they will be once
the whole sync is applied, so a note written early already mentions and links to notes written
later (a placeholder node their own batch fills) and nothing is moved again; the notes the sync
does not write get their mentions of changed names rewritten, and their links to the keys of
new notes re-resolved, once, at the end.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from neo4j.exceptions import Neo4jError

from knotwork.errors import GraphUnavailableError, KnotworkError
from knotwork.graph.names import NameIndex
from knotwork.ingest import write
from knotwork.ingest.changes import Change, Delete, Drafted, NoteOutcome, Prepared, Upsert
from knotwork.ingest.draft import parse
from knotwork.ingest.facts import new_note_keys
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.rows import FACTS_VERSION, note_props
from knotwork.vault.files import NoteText, read_note, scan_notes

log = logging.getLogger(__name__)
READ_GROUP = 64  # files read per trip to a worker thread
Progress = Callable[[int, int, str], None]


@dataclass
class SyncReport:
    notes: int = 0  # notes in the vault
    written: int = 0
    unchanged: int = 0
    renamed: int = 0
    deleted: int = 0
    chunks: int = 0
    embedded: int = 0
    extracted: int = 0
    linked: int = 0  # similarity edges made between new entities
    facts: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def add(self, outcome: NoteOutcome) -> None:
        match outcome.status:
            case "written":
                self.written += 1
            case "unchanged":
                self.unchanged += 1
            case "renamed":
                self.renamed += 1
            case "deleted":
                self.deleted += 1
        self.chunks += outcome.chunks
        self.embedded += outcome.embedded
        self.extracted += outcome.extracted
        self.facts.update(outcome.facts)
        self.warnings += outcome.warnings


@dataclass
class _Plan:
    upserts: list[Upsert]
    deletes: list[str]
    names: NameIndex  # the vault's names once the sync is applied
    reverse_keys: list[str]  # mentions to rewrite in the notes the sync does not write
    link_keys: list[str]  # their links to re-resolve: the keys of the notes the sync creates


async def sync_vault(ingestor: Ingestor, progress: Progress | None = None) -> SyncReport:
    """Bring the graph in step with the vault folder, a batch of notes per transaction."""
    if ingestor.root is None:
        raise KnotworkError("no vault folder: set KNOTWORK_VAULT_PATH or pass a path")
    report = SyncReport()
    plan = await _plan(ingestor, report, progress)
    deferred, ingestor.defer_entity_links = ingestor.defer_entity_links, True
    try:
        await _apply(ingestor, report, plan, progress)
    finally:
        ingestor.defer_entity_links = deferred
    await write.drop_placeholders(ingestor.core.store, ingestor.vault, plan.names)
    report.linked = await ingestor.link_entities()
    return report


async def _plan(ingestor: Ingestor, report: SyncReport, progress: Progress | None) -> _Plan:
    """Read the folder and the graph's hashes: what to write, move and delete. ``progress``
    counts the files read, so a bar moves from the first second of a large vault."""
    assert ingestor.root is not None
    root, limit = ingestor.root, ingestor.settings.max_note_bytes
    stored = {
        row["path"]: row["content_hash"]
        for row in await ingestor.core.store.read(
            "note_hashes",
            vault=ingestor.vault,
            facts_version=FACTS_VERSION,
            language_setting=ingestor.language_setting,
        )
    }
    scan = await asyncio.to_thread(scan_notes, root)  # symlinks skipped, case variants named
    paths, report.warnings = scan.paths, scan.warnings
    report.notes = len(paths)
    texts: dict[str, tuple[str, float]] = {}
    hashes: dict[str, str] = {}
    for start in range(0, len(paths), READ_GROUP):
        group = paths[start : start + READ_GROUP]
        if progress:
            for i, path in enumerate(group, start):
                progress(i, len(paths), f"reading {path}")
        for path, read in await asyncio.to_thread(_read_group, root, group, limit):
            if isinstance(read, KnotworkError):
                report.errors.append(str(read))
                continue
            note, hashes[path] = read
            report.warnings += note.warnings
            texts[path] = (note.text, note.mtime)
    gone = {p: h for p, h in stored.items() if p not in texts}
    # A note that vanished while a new one with the same content appeared has moved.
    moved: dict[str, str] = {}
    by_hash: dict[str, list[str]] = {}
    for path, digest in sorted(gone.items()):
        if digest is not None:
            by_hash.setdefault(digest, []).append(path)
    for path, digest in sorted(hashes.items()):
        if path not in stored and by_hash.get(digest):
            moved[path] = by_hash[digest].pop(0)
    deleted = sorted(set(gone) - set(moved.values()))
    work = [p for p in texts if stored.get(p) != hashes[p]]
    report.unchanged += len(texts) - len(work)
    upserts = [Upsert(p, texts[p][0], texts[p][1], moved.get(p), new=p not in stored) for p in work]
    names, keys, others = await _final_names(ingestor, upserts, deleted, set(stored))
    if not others:  # nothing the sync does not write: no mentions or links of others to move
        return _Plan(upserts, deleted, names, [], [])
    link_keys = new_note_keys(u.path for u in upserts if u.new)
    return _Plan(upserts, deleted, names, keys if ingestor.settings.mentions else [], link_keys)


def _read_group(
    root: Path, paths: list[str], limit: int
) -> list[tuple[str, tuple[NoteText, str] | KnotworkError]]:
    """Each note's text and content hash, or why it cannot be read."""
    out: list[tuple[str, tuple[NoteText, str] | KnotworkError]] = []
    for path in paths:
        try:
            note = read_note(root, path, limit)
        except KnotworkError as exc:
            out.append((path, exc))
            continue
        digest = hashlib.sha256(note.text.encode("utf-8", "surrogatepass")).hexdigest()
        out.append((path, (note, digest)))
    return out


async def _final_names(
    ingestor: Ingestor, upserts: list[Upsert], deleted: list[str], stored: set[str]
) -> tuple[NameIndex, list[str], bool]:
    """The vault's names once the sync is applied, the names whose mentions in the notes the
    sync does not write must be rewritten (those of notes that appear, go or move), and
    whether there are such notes."""
    names = NameIndex.from_rows(await ingestor.core.store.read("vault_names", vault=ingestor.vault))
    keys: set[str] = set()

    def parse_all() -> None:
        for u in upserts:
            u.note = parse(u.path, u.text)

    await asyncio.to_thread(parse_all)
    for gone in [*deleted, *(u.renamed_from for u in upserts if u.renamed_from)]:
        keys |= set(names.keys_of(gone))
        names.remove(gone)
    for u in upserts:
        assert u.note is not None
        props = note_props(u.note, u.mtime)
        old = set(names.keys_of(u.path))
        if u.renamed_from or u.path not in names or old != set(props["mkeys"]):
            keys |= old | set(props["mkeys"])
        names.put(u.path, props["lpath"], props["mkeys"])
    written = {u.path for u in upserts} | set(deleted)
    others = stored - written - {u.renamed_from for u in upserts}
    return names, sorted(keys), bool(others)


def _batches(upserts: list[Upsert], size: int) -> list[list[Change]]:
    """Batches that start small and double up to ``size``, and end as they started: the first
    write starts early, and the last one, which nothing overlaps, is small."""
    ramp, step = [], min(size, 16)
    while step < size:
        ramp.append(step)
        step *= 2
    head: list[int] = []
    tail: list[int] = []
    left = len(upserts)
    for step in ramp:  # a small sync takes what fits, alternately at either end
        for end in (head, tail):
            if left:
                end.append(min(step, left))
                left -= end[-1]
    sizes = head + [size] * (left // size) + ([left % size] if left % size else []) + tail[::-1]
    batches: list[list[Change]] = []
    start = 0
    for step in sizes:
        batches.append(list(upserts[start : start + step]))
        start += step
    return batches


class _Stages:
    """A batch's drafting and embedding, run ahead of the writes: drafting up to ``AHEAD``
    batches ahead, embedding one batch after another, so the embedder goes from one batch to
    the next without waiting for a write, for the drafting of what it embeds next or for the
    resolving of mentions. A stage's failure is raised where its batch is awaited."""

    AHEAD = 2

    def __init__(self, ingestor: Ingestor, batches: list[list[Change]]) -> None:
        self.ingestor, self.batches = ingestor, batches
        self.tasks: dict[int, asyncio.Task[Drafted]] = {}
        self.started = 0

    async def embedded(self, i: int) -> Drafted:
        """Batch ``i`` drafted and embedded; the stages of the batches after it started."""
        while self.started < min(i + 1 + self.AHEAD, len(self.batches)):
            previous = self.tasks.get(self.started - 1)
            self.tasks[self.started] = asyncio.create_task(self._run(self.started, previous))
            self.started += 1
        return await self.tasks.pop(i)

    async def _run(self, i: int, previous: asyncio.Task[Drafted] | None) -> Drafted:
        drafted = await self.ingestor.draft(self.batches[i])
        if previous is not None:  # one embedding at a time, in batch order
            await asyncio.wait([previous])
        return await self.ingestor.embed(drafted)

    def cancel(self) -> None:
        for task in self.tasks.values():
            task.cancel()


async def _apply(
    ingestor: Ingestor, report: SyncReport, plan: _Plan, progress: Progress | None
) -> None:
    batches = _batches(plan.upserts, ingestor.settings.ingest_batch)
    exclude = sorted(u.path for u in plan.upserts)
    total, done = len(plan.upserts) + len(plan.deletes), 0

    def advance(outcomes: list[NoteOutcome]) -> None:
        nonlocal done
        for outcome in outcomes:
            report.add(outcome)
            done += 1
            if progress:
                progress(done, total, outcome.path)

    async def prepare(batch: list[Change]) -> Prepared:
        return await ingestor.prepare(batch, plan.names)

    # The last batch deletes what is gone and rewrites the other notes' mentions.
    batches.append([Delete(p) for p in plan.deletes])
    stages = _Stages(ingestor, batches)
    try:
        for i, batch in enumerate(batches):
            prepared = await ingestor.resolve(await stages.embedded(i), plan.names)
            if i == len(batches) - 1:
                prepared.batch.reverse_keys, prepared.batch.exclude = plan.reverse_keys, exclude
                prepared.batch.link_keys = plan.link_keys
                if plan.upserts or plan.deletes:  # names may have changed: caches re-read
                    prepared.batch.names_token = uuid.uuid4().hex
                    ingestor.core.names.pop(ingestor.vault, None)
            advance(await _commit(ingestor, report, prepared, batch, prepare))
    finally:
        stages.cancel()


async def _commit(
    ingestor: Ingestor,
    report: SyncReport,
    prepared: Prepared,
    batch: list[Change],
    prepare: Callable[[list[Change]], Awaitable[Prepared]],
) -> list[NoteOutcome]:
    """Write a prepared batch; when it fails, note by note, so one bad note costs itself only."""
    try:
        return await ingestor.commit(prepared)
    except GraphUnavailableError:
        raise
    except (KnotworkError, Neo4jError) as exc:
        final = prepared.batch.reverse_keys or prepared.batch.link_keys
        if len(batch) <= 1 and not final:
            report.errors.append(f"{batch[0].path if batch else 'sync'}: {exc}")
            return []
        log.warning("a batch of %d notes failed (%s); writing them one by one", len(batch), exc)
    outcomes: list[NoteOutcome] = []
    for change in batch:
        try:
            outcomes += await ingestor.commit(await prepare([change]))
        except GraphUnavailableError:
            raise
        except (KnotworkError, Neo4jError) as exc:
            report.errors.append(f"{change.path}: {exc}")
    if final:
        prepared.batch.writes, prepared.batch.deletes = [], []
        try:
            await ingestor.commit(prepared)
        except (KnotworkError, Neo4jError) as exc:
            report.errors.append(f"mentions and links of renamed, new or deleted notes: {exc}")
    return outcomes
