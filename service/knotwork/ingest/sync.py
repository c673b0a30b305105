"""A whole vault into the graph: find what is new, changed, moved or gone, and apply it.

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
import logging
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from neo4j.exceptions import Neo4jError

from knotwork.errors import GraphUnavailableError, KnotworkError, VaultUnavailableError
from knotwork.graph.names import NameIndex
from knotwork.graph.queries.writes import NOTE_HASHES, SYNC_OWED, VAULT_NAMES
from knotwork.ingest import pipeline, write
from knotwork.ingest.changes import Change, Delete, Drafted, NoteOutcome, Prepared, Upsert
from knotwork.ingest.draft import parse
from knotwork.ingest.facts import new_note_keys
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.rows import FACTS_VERSION, note_props
from knotwork.vault.files import NoteScan, read_group, scan_notes

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
    owed: bool  # an earlier sync, cut off, left keys to pay (included above)
    # What the sync owes if it is cut off before its last batch, recorded by its first: the
    # keys above and those of the notes it deletes or moves away (a note written earlier in
    # the sync was resolved without them; restored before the next sync, they must move back).
    record: dict[str, list[str]]


async def sync_vault(ingestor: Ingestor, progress: Progress | None = None) -> SyncReport:
    """Bring the graph in step with the vault folder, a batch of notes per transaction."""
    if ingestor.root is None:
        raise KnotworkError("no vault folder: set KNOTWORK_VAULT_PATH or pass a path")
    report = SyncReport()
    upserts, deletes, planned = await _plan(ingestor, report, progress)
    deferred, ingestor.defer_entity_links = ingestor.defer_entity_links, True
    try:
        plan = await _apply(ingestor, report, upserts, deletes, planned, progress)
    finally:
        ingestor.defer_entity_links = deferred
    await write.drop_placeholders(ingestor.core.store, ingestor.vault, plan.names)
    report.linked = await ingestor.link_entities()
    return report


async def _plan(
    ingestor: Ingestor, report: SyncReport, progress: Progress | None
) -> tuple[list[Upsert], list[str], asyncio.Task[_Plan]]:
    """Read the folder and the graph's hashes: what to write, move and delete, and the names
    once that is done (a task: worked out while the first notes are drafted and embedded).
    ``progress`` counts the files read, so a bar moves from the first second of a large
    vault."""
    assert ingestor.root is not None
    root, limit = ingestor.root, ingestor.settings.max_note_bytes
    stored = {
        row["path"]: row["content_hash"]
        for row in await ingestor.core.store.read(
            NOTE_HASHES,
            vault=ingestor.vault,
            facts_version=FACTS_VERSION,
            language_setting=ingestor.language_setting,
        )
    }
    scan = await asyncio.to_thread(scan_notes, root)  # symlinks skipped, case variants named
    _check_seen(root, scan, len(stored), ingestor.vault)
    paths, report.warnings = scan.paths, scan.warnings
    report.notes = len(paths)
    texts: dict[str, tuple[str, float]] = {}
    hashes: dict[str, str] = {}
    unread: set[str] = set()  # listed but not readable: the graph keeps what it holds
    for start in range(0, len(paths), READ_GROUP):
        group = paths[start : start + READ_GROUP]
        if progress:
            for i, path in enumerate(group, start):
                progress(i, len(paths), f"reading {path}")
        for path, read in await asyncio.to_thread(read_group, root, group, limit):
            if isinstance(read, KnotworkError):
                kept = "; the graph keeps its last version" if path in stored else ""
                report.errors.append(f"{read}{kept}")
                unread.add(path)
                continue
            note, hashes[path] = read
            report.warnings += note.warnings
            texts[path] = (note.text, note.mtime)
    for folder, why in sorted(scan.unreadable.items()):
        held = sum(1 for p in stored if p.startswith(f"{folder}/"))
        report.errors.append(
            f"{folder}/: cannot be listed ({why}); the graph keeps the {held} notes it holds "
            "under it as they were"
        )
    # Only what the scan saw to be absent is gone: a note it could not read, or under a folder
    # it could not list, is kept as the graph holds it.
    gone = {
        p: h for p, h in stored.items() if p not in texts and p not in unread and not scan.unseen(p)
    }
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
    planned = asyncio.create_task(_planned(ingestor, upserts, deleted, set(stored)))
    return upserts, deleted, planned


async def _planned(
    ingestor: Ingestor, upserts: list[Upsert], deleted: list[str], stored: set[str]
) -> _Plan:
    names, keys, others, appearing = await _final_names(ingestor, upserts, deleted, stored)
    [debt] = await ingestor.core.store.read(SYNC_OWED, vault=ingestor.vault)
    owed = bool(debt["reverse"] or debt["links"])
    link_keys = sorted({*new_note_keys(appearing), *debt["links"]})
    reverse = sorted({*keys, *debt["reverse"]}) if ingestor.settings.mentions else []
    gone = new_note_keys([*deleted, *(u.renamed_from for u in upserts if u.renamed_from)])
    record = {"reverse": reverse, "links": sorted({*link_keys, *gone})}
    if not stored:  # a first sync owes nothing: what it did not write, the next writes as new
        record = {"reverse": [], "links": []}
    if not others:  # nothing the sync does not write: no mentions or links of others to move
        reverse, link_keys = [], []
    return _Plan(upserts, deleted, names, reverse, link_keys, owed, record)


def _check_seen(root: Path, scan: NoteScan, stored: int, vault: str) -> None:
    """Stop before a sync deletes what it could not see: the vault folder missing, unreadable,
    or empty (an unmounted drive's mount point) while the graph holds notes of it."""
    nothing = "; nothing in the graph was changed"
    if not root.is_dir():
        what = "is not a folder" if root.exists() else "does not exist"
        raise VaultUnavailableError(f"the vault folder {root} {what}{nothing}")
    if "." in scan.unreadable:
        raise VaultUnavailableError(
            f"the vault folder {root} cannot be listed ({scan.unreadable['.']}){nothing}"
        )
    if stored and not scan.paths and not any(root.iterdir()):
        raise VaultUnavailableError(
            f"the vault folder {root} is empty while the graph holds {stored} notes of vault "
            f"'{vault}' (an unmounted drive?){nothing}. If the notes are gone for good, put any "
            "file in the folder (e.g. an empty .keep) and sync again: their notes are deleted."
        )


async def _final_names(
    ingestor: Ingestor, upserts: list[Upsert], deleted: list[str], stored: set[str]
) -> tuple[NameIndex, list[str], bool, list[str]]:
    """The vault's names once the sync is applied, the names whose mentions in the notes the
    sync does not write must be rewritten (those of notes that appear, go or move), whether
    there are such notes, and the notes that appear (new, or filling a placeholder a sync cut
    off left: either way other notes' links to their keys may now resolve)."""
    names = NameIndex.from_rows(await ingestor.core.store.read(VAULT_NAMES, vault=ingestor.vault))
    keys: set[str] = set()

    def parse_all() -> None:
        for u in upserts:  # the first ones may be parsed by their drafting already
            u.note = u.note or parse(u.path, u.text)

    await asyncio.to_thread(parse_all)
    for gone in [*deleted, *(u.renamed_from for u in upserts if u.renamed_from)]:
        keys |= set(names.keys_of(gone))
        names.remove(gone)
    appearing = [u.path for u in upserts if u.path not in names]
    for u in upserts:
        assert u.note is not None
        props = note_props(u.note, u.mtime)
        old = set(names.keys_of(u.path))
        if u.renamed_from or u.path not in names or old != set(props["mkeys"]):
            keys |= old | set(props["mkeys"])
        names.put(u.path, props["lpath"], props["mkeys"])
    written = {u.path for u in upserts} | set(deleted)
    others = stored - written - {u.renamed_from for u in upserts}
    return names, sorted(keys), bool(others), appearing


async def _apply(
    ingestor: Ingestor,
    report: SyncReport,
    upserts: list[Upsert],
    deleted: list[str],
    planned: asyncio.Task[_Plan],
    progress: Progress | None,
) -> _Plan:
    size = ingestor.settings.ingest_batch
    # The last unit deletes what is gone and rewrites the other notes' mentions.
    writes: list[Change] = list(upserts)
    deletes: list[Change] = [Delete(p) for p in deleted]
    cut = [*pipeline.units(writes, size), deletes]
    exclude = sorted(u.path for u in upserts)
    total, done = len(upserts) + len(deleted), 0

    def advance(outcomes: list[NoteOutcome]) -> None:
        nonlocal done
        for outcome in outcomes:
            report.add(outcome)
            done += 1
            if progress:
                progress(done, total, outcome.path)

    async def prepare(batch: list[Change]) -> Prepared:
        return await ingestor.prepare(batch, plan.names)

    async def resolve(drafted: Drafted) -> Prepared:
        return await ingestor.resolve(drafted, (await planned).names)

    ingestor.core.names.pop(ingestor.vault, None)  # re-read by whoever edits after the sync
    stages = pipeline.Stages(ingestor, cut, size, resolve, first_after=planned)
    stages.start()  # the first unit is drafted and embedded while the names are worked out
    try:
        plan = await planned
        first = 0
        owes = any(plan.record.values())
        while first < len(cut):
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
            elif first == 0 and owes:  # recorded before anything the last batch settles
                prepared.batch.owed = plan.record
            if not last and (prepared.batch.writes or prepared.batch.deletes):
                # Names change with every batch: a sync cut off after it leaves no process
                # (this one included) trusting the names it cached before.
                prepared.batch.names_token = uuid.uuid4().hex
            record = plan.record if owes and (first == 0 or last) else None
            advance(await _commit(ingestor, report, prepared, batch, prepare, last, record))
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
) -> list[NoteOutcome]:
    """Write a prepared batch; when it fails, note by note, so one bad note costs itself only.

    ``last``: the sync's last batch, which moves other notes' mentions and links, clears the
    sync's record and stamps the names token after its notes. ``record``: what the sync owes
    if cut off, written before the notes go one by one (by a first or a last batch)."""
    b = prepared.batch
    try:
        return await ingestor.commit(prepared)
    except GraphUnavailableError:
        raise
    except (KnotworkError, Neo4jError) as exc:
        if not batch or (len(batch) == 1 and not (last or record)):
            report.errors.append(f"{batch[0].path if batch else 'sync'}: {exc}")
            return []
        log.warning("a batch of %d notes failed (%s); writing them one by one", len(batch), exc)
    store = ingestor.core.store
    if record:  # cut off on the way, the next sync pays it
        try:
            await write.write_batch(store, write.Batch(b.vault, b.targets, owed=record))
        except GraphUnavailableError:
            raise
        except (KnotworkError, Neo4jError) as exc:
            report.errors.append(f"the sync's record of what it owes other notes: {exc}")
    outcomes: list[NoteOutcome] = []
    for change in batch:
        try:
            outcomes += await ingestor.commit(await prepare([change]))
        except GraphUnavailableError:
            raise
        except (KnotworkError, Neo4jError) as exc:
            report.errors.append(f"{change.path}: {exc}")
    if not last and b.names_token and outcomes:  # names changed: other caches go stale
        await write.write_batch(store, write.Batch(b.vault, b.targets, names_token=b.names_token))
    if last:
        prepared.batch.writes, prepared.batch.deletes = [], []
        try:
            await ingestor.commit(prepared)
        except GraphUnavailableError:
            raise  # the record, if any, is written: the next sync pays it
        except (KnotworkError, Neo4jError) as exc:
            report.errors.append(f"mentions and links of renamed, new or deleted notes: {exc}")
    return outcomes
