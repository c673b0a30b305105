"""A note write's journal entry, from before its file changes until the graph shows it.

The entry is recorded before the file changes (so nothing after that can lose the write), taken
back by the write that finishes or gives up, and marked once the file changed when someone else
brings the graph in step (a watcher, the replay): ``ingest/journal.py`` keeps the entries,
``serving/watched.py`` takes back those a watcher applied.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from knotwork.errors import ConfigError
from knotwork.ingest.journal_entry import Entry
from knotwork.serving.refusals import raise_if_full
from knotwork.serving.writers import VaultWriters, Way

log = logging.getLogger(__name__)


def _journal_first(writers: VaultWriters, way: Way, rel: str, intent: str) -> Entry | None:
    """The path is journaled before the file changes: whatever stops the write after that — a
    lost lease, a cancelled request, an error from Neo4j, a crash — leaves it for the replay,
    which reads the disk. A write handed to a watcher too: killed (its lease standing until
    its TTL) or stopping before it saw the file change, the watcher would drop it; the replay
    applies it once the lease is free, and one the watcher applied leaves the journal
    (serving/watched.py: by ``intent``, the content hash it puts). The entry is this write's
    own, for it to take back."""
    if way.kind not in ("direct", "queued", "offline", "watched"):
        return None  # busy: refused before the file changes
    try:
        return writers.journal.add(rel, intent)
    except OSError as exc:
        where = writers.journal.file
        raise_if_full(exc, f"for the journal of pending writes at {where}")
        raise ConfigError(
            f"the journal of pending writes at {where} cannot be written ({exc.strerror}); set "
            "KNOTWORK_STATE_DIR to a writable folder. Nothing was written"
        ) from exc


def take_back(writers: VaultWriters, entry: Entry | None) -> None:
    """This write's entry goes (its file unchanged, or the graph showing it); if the journal
    cannot be rewritten now, the entry stays and costs one replay of a path in step."""
    if entry is None:
        return
    try:
        writers.journal.discard({entry})
    except OSError as exc:
        log.warning("journal entry of %s left for the replay: %s", entry.path, exc)


@contextmanager
def changing(writers: VaultWriters, way: Way, rel: str, intent: str) -> Iterator[Entry | None]:
    """The block that changes the file, journaled first; a block that raises changed nothing."""
    entry = _journal_first(writers, way, rel, intent)
    try:
        yield entry
    except BaseException:
        take_back(writers, entry)
        raise
    if way.kind != "direct":  # left to another: its entry says the file changed
        landed(writers, entry)


def landed(writers: VaultWriters, entry: Entry | None) -> None:
    """The write's file changed: should the note change again before the graph shows this
    write (a user's edit), its entry goes once the graph shows the disk (serving/watched.py).
    Unsaid, it goes once the graph holds its intent (or, ``UNLANDED_FOR_S`` on, shows the disk),
    or is replayed."""
    if entry is None:
        return
    try:
        writers.journal.landed(entry)
    except OSError as exc:
        log.warning("journal entry of %s not marked as written: %s", entry.path, exc)
