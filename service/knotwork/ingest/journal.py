"""Pending REST writes: notes changed on disk whose graph write has not happened yet.

A REST write changes the file first and the graph second. When the second step cannot happen
now — Neo4j is unreachable, this process's own ``POST /sync`` is running and will ingest it
before it ends, or a watcher holds the lease (it may die or stop before it sees the file
change: serving/watched.py) — the note's vault-relative path is recorded here, and ``replay``
later brings the graph in step with what is then on disk (present → upsert, absent → delete),
removing each entry only once its graph write succeeded. So an API without a watcher
converges on its own.

The journal is one small text file, a path per line, kept outside the vault (a vault may be
synced, versioned or read by other tools, and a file of Knotwork's there would travel with it):
``<KNOTWORK_STATE_DIR>/<vault name>-<12 hex>.journal``, the state directory defaulting to
``$XDG_STATE_HOME/knotwork`` (``~/.local/state/knotwork``); the hex tells apart vaults of one
name at other paths or in other databases. It is rewritten whole, atomically, on each change.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
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
from knotwork.plural import counted, plural
from knotwork.settings import Settings
from knotwork.vault.files import symlink_on_path
from knotwork.vault.folders import EMPTY, folder_unseen, sync_folder
from knotwork.vault.write import exists_exactly, spelled_on_disk

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)


def state_dir(settings: Settings) -> Path:
    if settings.state_dir is not None:
        return settings.state_dir
    base = os.environ.get("XDG_STATE_HOME") or "~/.local/state"
    return Path(base).expanduser() / "knotwork"


def journal_file(settings: Settings) -> Path:
    root = settings.vault_path.resolve() if settings.vault_path else ""
    key = f"{root}\n{settings.neo4j_uri}\n{settings.neo4j_database}\n{settings.vault_name}"
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return state_dir(settings) / f"{settings.vault_name}-{digest}.journal"


Entry = tuple[str, str]  # (vault-relative path, the token of the write that recorded it)


class Journal:
    """The pending paths of one vault, kept in its file alone.

    Every process of the vault (the API, an MCP server with writes) shares the file, so each
    change re-reads it under an exclusive lock and writes it back whole: none drops another's
    entries, and a reader always sees a whole list. Each write records its own entry (a path
    and a token, one line each), so a writer that finishes or gives up takes back its own entry
    only — never one another writer of the same path relies on — and a replay removes only
    the entries it saw before it applied the path."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self._lock_file = file.with_name(f"{file.name}.lock")
        self._lock_warned = False

    def _read(self) -> set[Entry]:
        try:
            text = self.file.read_text(encoding="utf-8", errors="surrogateescape")
        except FileNotFoundError:
            return set()
        entries: set[Entry] = set()
        for line in text.split("\n"):  # not splitlines: U+2028 and U+0085 may be in a name
            if line:  # a path holds no tab (no control character); an older line, no token
                rel, _, token = line.partition("\t")
                entries.add((rel, token))
        return entries

    def paths(self) -> list[str]:
        return sorted({rel for rel, _ in self._read()})

    def entries(self, rel: str) -> set[Entry]:
        return {e for e in self._read() if e[0] == rel}

    def held(self) -> set[Entry]:
        return self._read()

    def __len__(self) -> int:
        return len(self.paths())

    def pending(self) -> bool:
        """Whether any entry may be waiting: a look at the file's existence, not its content
        (an empty journal has no file), for a poll that runs every few seconds."""
        return self.file.exists()

    def add(self, rel: str) -> Entry:
        """Record a write of ``rel``; the entry to take back once it is in the graph."""
        entry = (rel, uuid.uuid4().hex[:12])
        with self._locked():
            self._save(self._read() | {entry})
        return entry

    def discard(self, entries: set[Entry]) -> None:
        """Take back these entries; a later write's of the same path stays. The folder is not
        flushed: an entry a crash brings back costs one replay of a path already in step."""
        if not entries:
            return
        with self._locked():
            held = self._read()
            if held & entries:
                self._save(held - entries, durable=False)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """An exclusive advisory lock on the journal's lock file, against other processes.
        Where the file system has no such locks (some network mounts), it goes on unlocked
        with a warning: one process per vault is then safe, two may drop an entry."""
        self.file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if fcntl is None:
            yield
            return
        fd = os.open(self._lock_file, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError as exc:
                if not self._lock_warned:
                    self._lock_warned = True
                    log.warning(
                        "the journal %s cannot be locked (%s); two processes writing notes of "
                        "this vault at once may drop a pending write",
                        self._lock_file,
                        exc.strerror,
                    )
            yield
        finally:
            os.close(fd)  # releases the lock

    def _save(self, entries: set[Entry], durable: bool = True) -> None:
        """Replace the file atomically (a crash leaves the old list or the new one)."""
        if not entries:
            self.file.unlink(missing_ok=True)
            return
        lines = "".join(f"{rel}\t{token}\n" for rel, token in sorted(entries))
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
            present = symlink_on_path(root, rel) is None and exists_exactly(root / rel, root)
            # As the disk spells it (HFS+ stores a new name decomposed), as the watcher sees it.
            spelled = spelled_on_disk(root, rel) if present else rel
            try:
                if present:
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
