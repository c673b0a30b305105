"""Pending note writes: notes changed on disk whose graph write has not happened yet.

A note write (REST, or an MCP server's with writes) changes the file first and the graph
second. When the second step cannot happen now — Neo4j is unreachable, this process's own
``POST /sync`` is running and will ingest it before it ends, or a watcher holds the lease (it
may die or stop before it sees the file change: serving/watched.py) — the note's vault-relative
path is recorded here, with the content hash the write intends, and ``replay`` later brings the
graph in step with what is then on disk (present → upsert, absent → delete), removing each
entry only once its graph write succeeded. So an API without a watcher converges on its own.

The journal is one small text file, an entry per line, kept outside the vault (a vault may be
synced, versioned or read by other tools, and a file of Knotwork's there would travel with it):
``<KNOTWORK_STATE_DIR>/<vault name>-<12 hex>.journal`` (journal_place.py names it). It is
rewritten whole, atomically, on each change; that a write's file changed is appended beside it
(``landed``), until the next rewrite.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

from knotwork.errors import (
    GraphQueryError,
    GraphUnavailableError,
    KnotworkError,
    ManifestMismatchError,
    QueryTimeoutError,
    VaultUnavailableError,
)
from knotwork.graph.queries.reads import VAULT_NOTES
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.journal_entry import (
    LANDED,
    Entry,
    append_mark,
    entry_line,
    marks_file,
    parse_line,
    read_marks,
)
from knotwork.ingest.journal_place import journal_file, legacy_journal_file
from knotwork.plural import counted, plural
from knotwork.settings import Settings
from knotwork.vault.folders import EMPTY, folder_unseen, sync_folder
from knotwork.vault.write import note_on_disk

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)


def settings_journal(settings: Settings) -> Journal:
    """The journal of the configured vault, its file named by an earlier version read too."""
    return Journal(journal_file(settings), legacy=legacy_journal_file(settings))


class Journal:
    """The pending writes of one vault, kept in its file alone.

    Every process of the vault (the API, an MCP server with writes) shares the file, so each
    change re-reads it under an exclusive lock and writes it back whole: none drops another's
    entries, and a reader always sees a whole list. Each write records its own entry (a line),
    so a writer that finishes or gives up takes back its own entry only — never one another
    writer of the same path relies on — and a replay removes only the entries it saw before it
    applied the path.

    ``legacy``: the file an earlier version named this journal by (the URI as spelled). It is
    read with this one, and its entries move here at the first change: under its own lock too,
    taken whether or not it exists (an earlier version may be running beside this one and create
    it meanwhile), and it is deleted only when that change read it. A downgrade does not read
    this file back: the next sync (``knotwork ingest``, a watcher's start, ``POST /sync``)
    applies what its entries were waiting for (the disk holds every write), or this version once
    it runs again. Mirroring each entry into the older file instead would cost every write a
    second file rewrite, and a file per spelling of the URI."""

    def __init__(self, file: Path, legacy: Path | None = None) -> None:
        self.file = file
        self.legacy = legacy if legacy != file else None
        self.marks = marks_file(file)
        self._lock_warned = False

    def _load(self) -> tuple[set[Entry], bool]:
        """The entries of both files; whether the earlier version's file was there to read."""
        entries: set[Entry] = set()
        read_legacy = False
        for file in (self.file, self.legacy):
            if file is None:
                continue
            try:
                text = file.read_text(encoding="utf-8", errors="surrogateescape")
            except FileNotFoundError:
                continue
            read_legacy = read_legacy or file == self.legacy
            # not splitlines: U+2028 and U+0085 may be in a name
            entries.update(parse_line(line) for line in text.split("\n") if line)
        marks = read_marks(self.marks) if entries else set()
        marked = {e for e in entries if e.token in marks and not e.state}
        return entries - marked | {e._replace(state=LANDED) for e in marked}, read_legacy

    def held(self) -> set[Entry]:
        """Every entry, as the file (and the earlier version's) holds it now."""
        return self._load()[0]

    def paths(self) -> list[str]:
        return sorted({e.path for e in self.held()})

    def entries(self, rel: str) -> set[Entry]:
        return {e for e in self.held() if e.path == rel}

    def __len__(self) -> int:
        return len(self.paths())

    def pending(self) -> bool:
        """Whether any entry may be waiting: a look at the file's existence, not its content
        (an empty journal has no file), for a poll that runs every few seconds."""
        return self.file.exists() or (self.legacy is not None and self.legacy.exists())

    def add(self, rel: str, intent: str = "") -> Entry:
        """Record a write of ``rel`` that puts ``intent`` in the graph (its content hash, or
        DELETED); the entry to take back once it is in the graph."""
        entry = Entry(rel, uuid.uuid4().hex[:12], intent)
        with self._locked():
            held, moving = self._load()
            self._save(held | {entry}, moving=moving)
        return entry

    def landed(self, entry: Entry) -> None:
        """Say that ``entry``'s write changed its file: a line appended beside the journal, not
        flushed, that the next rewrite folds into the entry's own line. Rewriting the journal
        here would cost every write handed to a watcher a second fsync (a tenth to a fifth of
        such a write's time, measured). A mark lost or cut in a crash only keeps its entry
        longer: it goes once the graph holds its intent (or, a minute on, shows the disk), or is
        replayed (serving/watched.py)."""
        with self._locked():
            append_mark(self.marks, entry.token)

    def discard(self, entries: set[Entry]) -> None:
        """Take back these entries (whatever their state now); a later write's of the same
        path stays. The folder is not flushed: an entry a crash brings back costs one replay of
        a path already in step."""
        if not entries:
            return
        keys = {e.key for e in entries}
        with self._locked():
            held, moving = self._load()
            kept = {e for e in held if e.key not in keys}
            if kept != held:
                self._save(kept, durable=False, moving=moving)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """An exclusive advisory lock on the journal's lock file, against other processes, and
        on the earlier version's (it locks that one alone). Where the file system has no such
        locks (some network mounts), it goes on unlocked with a warning: one process per vault
        is then safe, two may drop an entry."""
        self.file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.ExitStack() as stack:
            stack.enter_context(self._flock(self.file))  # always first: no deadlock
            if self.legacy is not None:
                stack.enter_context(self._flock(self.legacy))
            yield

    @contextlib.contextmanager
    def _flock(self, file: Path) -> Iterator[None]:
        if fcntl is None:
            yield
            return
        lock_file = file.with_name(f"{file.name}.lock")
        fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError as exc:
                if not self._lock_warned:
                    self._lock_warned = True
                    log.warning(
                        "the journal %s cannot be locked (%s); two processes writing notes of "
                        "this vault at once may drop a pending write",
                        lock_file,
                        exc.strerror,
                    )
            yield
        finally:
            os.close(fd)  # releases the lock

    def _save(self, entries: set[Entry], durable: bool = True, moving: bool = False) -> None:
        """Replace the file atomically (a crash leaves the old list or the new one). ``moving``:
        this change read the earlier version's file (under its lock), which goes once its
        entries are durably in this one."""
        if not entries:
            self.file.unlink(missing_ok=True)
        else:
            self._replace("".join(entry_line(e) for e in sorted(entries)), durable or moving)
        if moving:
            assert self.legacy is not None
            self.legacy.unlink(missing_ok=True)
            log.info("the journal %s moved into %s", self.legacy.name, self.file.name)
        self.marks.unlink(missing_ok=True)  # in the lines now, or of entries gone

    def _replace(self, lines: str, durable: bool) -> None:
        fd, tmp = tempfile.mkstemp(prefix=".journal-", dir=self.file.parent)
        try:
            with os.fdopen(fd, "wb") as out:  # its data on disk before its name replaces
                out.write(lines.encode("utf-8", "surrogateescape"))  # the old (XFS and others)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.file)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        if durable:
            sync_folder(self.file.parent)


async def replay(ingestor: Ingestor, journal: Journal) -> int:
    """Bring the graph in step with the disk for every pending path; returns how many were
    applied. The caller holds the vault's lease. GraphUnavailableError stops the replay (the
    rest stays pending); a note the disk holds but that cannot be ingested (binary, too large)
    is dropped with a warning, as a sync would report and skip it.

    Nothing is taken for gone while it cannot be seen: with the vault folder missing (a drive
    not mounted) the replay stops with VaultUnavailableError before deleting anything, and a
    path that could not be read, or failed unexpectedly, stays pending while the others go
    on; the first such failure is raised once they are done, so a caller that loops until
    the journal is empty stops. Neo4j away, or the graph re-embedded with another model
    (ManifestMismatchError), stops the replay at once, every path kept."""
    root = ingestor.root
    if root is None:
        return 0
    unseen = folder_unseen(root)
    if unseen == EMPTY:  # a drive's mount point, or the last notes deleted: the graph tells
        [row] = await ingestor.core.store.read(VAULT_NOTES, vault=ingestor.vault)
        held = int(row["notes"])  # written notes are in the journal: not all of them gone
        unseen = (
            f"is empty while the graph holds {held} of its notes"
            if held > len(journal.paths())
            else None
        )
    if unseen:
        raise VaultUnavailableError(
            f"the vault folder {root} {unseen} (a drive not mounted?); "
            f"{counted(len(journal.paths()), 'pending write')} "
            f"{plural(len(journal.paths()), 'waits', 'wait')} for it"
        )
    done, failed = 0, None
    for rel in journal.paths():
        async with ingestor.core.note_locks.hold(rel):
            seen = journal.entries(rel)  # a write of this process finished meanwhile took its own
            if not seen:
                continue
            spelled = note_on_disk(root, rel)  # as the watcher sees it
            try:
                if spelled is not None:
                    await ingestor.upsert_path(spelled)
                else:
                    await ingestor.delete(rel)
            except (GraphUnavailableError, ManifestMismatchError):  # kept, for after a restart
                raise
            except Exception as exc:
                kept = isinstance(exc, (QueryTimeoutError, GraphQueryError)) or isinstance(
                    exc.__cause__, OSError
                )
                if isinstance(exc, KnotworkError) and not kept:
                    log.warning("pending write of %s not applied: %s", rel, exc)
                else:  # unreadable, too slow or refused by Neo4j for now, or a bug: kept
                    log.warning("pending write of %s kept for a later try: %s", rel, exc)
                    failed = failed or exc
                    continue
            journal.discard(seen)  # a write recorded while this one ran is replayed next
            done += 1
        await asyncio.sleep(0)
    if failed is not None:
        raise failed
    return done
