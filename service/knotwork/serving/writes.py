"""Note writes and the whole-vault sync as the REST routes and the MCP write tools both do them.

Nothing here knows HTTP: a refusal is a Knotwork error (``VaultPathError`` for the path itself,
``WriteConflictError`` for a conflict with the vault or a read-only vault, ``NoteNotFoundError``,
``NoteError`` for a body that is not a note, ``LeaseHeldError`` when a writer that does not
watch the files holds the vault, ``VaultUnavailableError`` for a vault folder that cannot be
seen: ``serving.folder``; ``ManifestMismatchError`` for a graph re-embedded with another model
since this process started), and a write that reached the disk returns a ``WriteResult``
saying whether the graph shows it already (``done``; the chat model's facts follow in the
background, ``serving.extraction``), someone else will ingest it
(``accepted``) or the journal replays it once Neo4j is back (``journaled``). Which way a write
goes is ``serving.writers``'s rule; what a write may touch is ``vault_write``'s policy; the
refusals met before the file changes are ``serving.refusals``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Literal

from knotwork.core import Core
from knotwork.errors import (
    GraphTransientError,
    GraphUnavailableError,
    LeaseLostError,
    NoteError,
    QueryTimeoutError,
    VaultPathError,
)
from knotwork.graph.queries.writes import NOTES_STATE
from knotwork.ingest.changes import NoteOutcome, Progress
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.journal_entry import DELETED, Entry
from knotwork.ingest.sync import sync_vault
from knotwork.retrieve.notes import not_found
from knotwork.serving.bodies import Synced, synced
from knotwork.serving.folder import vault_root
from knotwork.serving.journaled import changing, landed, take_back
from knotwork.serving.refusals import busy, refused_as_conflict, writable
from knotwork.serving.writers import SERVER, VaultWriters, Way
from knotwork.text.digest import text_hash
from knotwork.vault.files import decode
from knotwork.vault.new_names import new_name_problem
from knotwork.vault.write import (
    case_variants,
    case_variants_on_disk,
    delete_note_file,
    exists_exactly,
    note_target,
    refuse_case_variants,
    spelled_on_disk,
    unicode_forms,
    write_note_file,
)

log = logging.getLogger(__name__)

SAVED = (
    "the vault's file is {done}, but Neo4j is not reachable, so the graph does not show it "
    "yet; the write is journaled and the graph catches up on its own once Neo4j answers again "
    "— nothing to redo"
)


@dataclass(frozen=True)
class WriteResult:
    """A note write or delete that reached the vault's file."""

    path: str
    status: Literal["done", "accepted", "journaled"]
    done: Literal["saved", "deleted"]
    outcome: NoteOutcome | None = None  # the ingest's, when the graph shows it already
    ingested_by: str | None = None  # the lease's holder, when accepted

    @property
    def detail(self) -> str:
        return SAVED.format(done=self.done)


def _later(way: Way, rel: str, done: Literal["saved", "deleted"]) -> WriteResult:
    """The file changed; the journal's replay (offline), the running sync (queued) or a
    watcher of the files brings the graph in step with it (the replay, should the watcher
    die or stop before it sees the change: the entry stays)."""
    if way.kind == "offline":
        return WriteResult(rel, "journaled", done)
    holder = (way.holder or {}).get("holder")
    return WriteResult(rel, "accepted", done, ingested_by=holder)


class _Landing:
    """How far a direct write got, for a lease lost on the way: before the file changed it
    is a refusal (409); after, the write is not undone — its journal entry stays for the
    replay (202, ingested by this process) — and after the graph showed it, it is done."""

    def __init__(self, writers: VaultWriters, rel: str, done: Literal["saved", "deleted"]):
        self.writers, self.rel, self.done = writers, rel, done
        self.changed = False
        self.result: WriteResult | None = None
        self._lost: LeaseLostError | None = None

    @asynccontextmanager
    async def kept(self) -> AsyncIterator[None]:
        try:
            yield
        except LeaseLostError as exc:
            if not self.changed:
                raise
            self._lost = exc

    def outcome(self) -> WriteResult:
        if self.result is not None:
            return self.result
        assert self._lost is not None, "a direct write ends with its result or a lost lease"
        log.warning(
            "%s: the file is %s; the journal's replay brings the graph in step: %s",
            self.rel,
            self.done,
            self._lost,
        )
        return WriteResult(self.rel, "accepted", self.done, ingested_by=self.writers.holder)


async def _ingest(
    writers: VaultWriters,
    entry: Entry | None,
    rel: str,
    done: Literal["saved", "deleted"],
    work: Callable[[], Awaitable[NoteOutcome]],
) -> WriteResult:
    """The direct write's graph step; its journal entry goes once the graph shows it."""
    try:
        outcome = await work()
    except GraphTransientError as exc:  # Neo4j answers, but not this write: said, replayed
        log.warning(
            "%s: the file is %s; the graph write failed (%s), left to the replay", rel, done, exc
        )
        landed(writers, entry)
        return WriteResult(rel, "journaled", done)
    except (GraphUnavailableError, QueryTimeoutError):  # the journal's replay applies it
        landed(writers, entry)
        return WriteResult(rel, "journaled", done)
    take_back(writers, entry)
    return WriteResult(rel, "done", done, outcome=outcome)


def nul_problem(body: str) -> str | None:
    """Why a note's text with NUL in it is refused, worded for a client that sent it (the
    file reader's "looks binary (NUL bytes); skipped" reads as accepted but ignored)."""
    at = body.find("\x00")
    if at < 0:
        return None
    offset = len(body[:at].encode("utf-8"))
    return (
        f"the note holds a NUL character (at byte {offset} of its text), so it is not text; "
        "send the note as UTF-8 text without NUL (nothing was written)"
    )


async def put_note(core: Core, writers: VaultWriters, path: str, body: str) -> WriteResult:
    """Write the note's file atomically, then ingest it (or leave it to whoever will)."""
    root = await vault_root(core, held_ok=0)
    rel, full = note_target(root, path)
    if (problem := nul_problem(body)) is not None:
        raise NoteError(f"{rel}: {problem}")
    data = body.encode("utf-8")
    body = decode(data, rel, core.settings.max_note_bytes).text  # as a read of the file gives it
    writable(core, root)
    landing = _Landing(writers, rel, "saved")
    # From the checks to the graph write: no interleaving with another write of this note.
    async with core.note_locks.hold(rel), landing.kept(), writers.write() as way:
        # Spelled again under the lock: a write of this note in its other Unicode form may
        # have made the file (or a folder of its path) while this one waited.
        rel, full = note_target(root, rel)
        landing.rel = rel
        if way.kind == "busy":
            raise busy(rel, way)
        if way.kind != "offline":  # not written for a graph re-embedded under this process
            with contextlib.suppress(GraphUnavailableError):  # gone meanwhile: journaled
                await core.check_manifest()
        with changing(writers, way, rel, text_hash(body)) as entry:
            # A note already on disk under exactly this name stays writable: a case variant
            # or a look-alike is refused as a new name only (ingest keeps both of a pair
            # "Pair.md" and "pair.md"; each is edited at its own path).
            if not exists_exactly(full, root.resolve()):
                if way.kind == "offline":  # the disk's variants; the graph's are the disk's
                    variants = case_variants_on_disk(root, rel)
                else:
                    variants = await case_variants(core.store, writers.vault, root, rel)
                refuse_case_variants(rel, variants)  # first: it names the note taken for
                if problem := new_name_problem(root, rel):
                    raise VaultPathError(f"{problem} (nothing was written)")
            with refused_as_conflict():
                mtime = write_note_file(root, rel, full, data)
        landing.changed = True
        if way.kind != "direct":
            return _later(way, rel, "saved")
        rel = spelled_on_disk(root, rel)  # HFS+ stores a new name decomposed: as the watcher's
        ingestor = Ingestor(core, root=root)
        # The answer does not wait for the chat model (a minute a chunk on a CPU): the chunks
        # stay pending (the outcome counts them) for the writers' background extraction.
        ingestor.extract_inline = False
        ingestor.finisher = SERVER
        landing.result = await _ingest(
            writers, entry, rel, "saved", lambda: ingestor.upsert_text(rel, body, mtime)
        )
    result = landing.outcome()
    if result.outcome is not None and result.outcome.pending:
        writers.extraction.wanted()
    return result


async def delete_note(core: Core, writers: VaultWriters, path: str) -> WriteResult:
    """Delete the note's file, then remove it from the graph (or leave it to whoever will)."""
    root = await vault_root(core, held_ok=1)
    rel, full = note_target(root, path, deleting=True)
    async with core.note_locks.hold(rel):
        # As the disk spells it now (see put_note).
        rel, full = note_target(root, rel, deleting=True)
        on_disk = exists_exactly(full, root.resolve(), strict=True)
        if on_disk:
            writable(core, root)
        else:  # gone from the disk (say, by an earlier delete while Neo4j was down)
            forms = unicode_forms(rel)  # as the disk listed it then, which is no longer known
            rows = await core.store.read(NOTES_STATE, vault=writers.vault, paths=forms)
            held = {row["path"] for row in rows if row["content_hash"] is not None}
            if not held:  # naming a note of the same name in other letter case, if any
                raise await not_found(core, rel, f"no note {rel!r} in the vault")
            rel = next(form for form in forms if form in held)
        landing = _Landing(writers, rel, "deleted")
        async with landing.kept(), writers.write() as way:
            if way.kind == "busy":
                raise busy(rel, way)
            with changing(writers, way, rel, DELETED) as entry:
                if on_disk:
                    with refused_as_conflict():
                        delete_note_file(root, rel, full)
            landing.changed = True
            if way.kind != "direct":
                return _later(way, rel, "deleted")
            ingestor = Ingestor(core, root=root)
            landing.result = await _ingest(
                writers, entry, rel, "deleted", lambda: ingestor.delete(rel)
            )
        return landing.outcome()


async def sync_all(core: Core, writers: VaultWriters, progress: Progress | None = None) -> Synced:
    """Bring the graph in step with the whole vault folder, under the vault's lease, its steps
    told to ``progress`` (an MCP client's progress notifications).

    The lease is renewed while the sync runs (LeaseHeldError naming the holder; a lease lost
    meanwhile stops the sync with LeaseLostError). Note writes made meanwhile are applied from
    disk before the lease is given back."""
    ingestor = Ingestor(core, root=await vault_root(core))
    ingestor.finisher = SERVER
    async with writers.sync():
        report = await sync_vault(ingestor, progress)
        await writers.drain(ingestor)
    return synced(report)
