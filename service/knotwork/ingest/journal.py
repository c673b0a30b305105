"""Pending REST writes: notes changed on disk whose graph write has not happened yet.

A REST write changes the file first and the graph second. When the second step cannot happen
now — Neo4j is unreachable, or this process's own ``POST /sync`` is running and will ingest it
before it ends — the note's vault-relative path is recorded here, and ``replay`` later brings
the graph in step with what is then on disk (present → upsert, absent → delete), removing each
entry only once its graph write succeeded. So an API without a watcher converges on its own.

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
from collections.abc import Iterator
from pathlib import Path

from knotwork.errors import GraphUnavailableError, KnotworkError
from knotwork.ingest.ingestor import Ingestor
from knotwork.settings import Settings
from knotwork.vault.files import symlink_on_path, sync_folder
from knotwork.vault.write import exists_exactly

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


class Journal:
    """The set of pending paths of one vault, kept in its file alone.

    Every process of the vault (the API, an MCP server with writes) shares the file, so each
    change re-reads it under an exclusive lock on its folder and writes it back whole: none
    drops another's entries, and a reader always sees a whole list."""

    def __init__(self, file: Path) -> None:
        self.file = file

    def _read(self) -> set[str]:
        try:
            text = self.file.read_text(encoding="utf-8", errors="surrogateescape")
        except FileNotFoundError:
            return set()
        return {line for line in text.split("\n") if line}  # not splitlines: U+2028 is a name

    def paths(self) -> list[str]:
        return sorted(self._read())

    def __len__(self) -> int:
        return len(self._read())

    def __contains__(self, rel: object) -> bool:
        return rel in self._read()

    def add(self, rel: str) -> None:
        with self._locked():
            paths = self._read()
            if rel not in paths:
                self._save(paths | {rel})

    def remove(self, rel: str) -> None:
        with self._locked():
            paths = self._read()
            if rel in paths:
                self._save(paths - {rel})

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """The folder locked against other processes' changes (an advisory lock on the folder
        itself, so no lock file is left beside the journal)."""
        folder = self.file.parent
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if fcntl is None:  # no advisory locks here: one process per vault
            yield
            return
        fd = os.open(folder, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # releases the lock

    def _save(self, paths: set[str]) -> None:
        """Replace the file atomically (a crash leaves the old list or the new one)."""
        if not paths:
            self.file.unlink(missing_ok=True)
            sync_folder(self.file.parent)
            return
        data = "".join(f"{p}\n" for p in sorted(paths)).encode("utf-8", "surrogateescape")
        fd, tmp = tempfile.mkstemp(prefix=".journal-", dir=self.file.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.file)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        sync_folder(self.file.parent)


async def replay(ingestor: Ingestor, journal: Journal) -> int:
    """Bring the graph in step with the disk for every pending path; returns how many were
    applied. The caller holds the vault's lease. GraphUnavailableError stops the replay (the
    rest stays pending); a note the disk holds but that cannot be ingested (binary, too large)
    is dropped with a warning, as a sync would report and skip it."""
    root = ingestor.root
    if root is None:
        return 0
    done = 0
    for rel in journal.paths():
        async with ingestor.core.note_locks.hold(rel):
            present = symlink_on_path(root, rel) is None and exists_exactly(root / rel)
            try:
                if present:
                    await ingestor.upsert_path(rel)
                else:
                    await ingestor.delete(rel)
            except GraphUnavailableError:
                raise
            except KnotworkError as exc:
                log.warning("pending write of %s not applied: %s", rel, exc)
            journal.remove(rel)
            done += 1
        await asyncio.sleep(0)
    return done
