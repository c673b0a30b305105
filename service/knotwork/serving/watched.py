"""REST writes left to a watcher (202 ``accepted``): journaled like every other write.

A watcher holding the lease may never see a write it was handed: killed, its lease stands until
its TTL and the write's file event goes to no one; stopped, its last look at the changes waiting
may come before the event of a write that read the lease just before it said it stops. So the
path is journaled before the file changes, as for a write this process ingests itself, and the
journal's replay applies it once the lease is free (a path the watcher applied meanwhile costs
the replay one unchanged-hash check: the graph is left as it is).

While the watcher lives, its lease keeps the replay out; the entries of the paths it applied go
here instead, or the journal would grow with every write made while a watcher runs (and be
rewritten whole at each). An entry goes only once the graph holds the disk's version of its
path, and only when it was already there at the previous look: a write journals its path before
its file changes, and the graph still holding the old version must not take it back meanwhile
(this process's writes hold the note's lock until the file changed; another process's, such as
an MCP server with writes, are given a look's time, ``REPLAY_EVERY_S``).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from knotwork.core import Core
from knotwork.graph.queries.writes import NOTES_STATE
from knotwork.ingest.journal import Entry, Journal
from knotwork.vault.files import read_group, symlink_on_path
from knotwork.vault.write import exists_exactly, spelled_on_disk

log = logging.getLogger(__name__)


class Handed:
    """The journal's entries of writes handed to a watcher, taken back once it applied them."""

    def __init__(self, core: Core, journal: Journal, vault: str) -> None:
        self.core, self.journal, self.vault = core, journal, vault
        self._seen: set[Entry] = set()  # the entries of the previous look

    async def prune(self) -> int:
        """Take back the entries, seen at the previous look too, whose path the graph shows as
        the disk has it now; how many went. Any other entry stays for the replay."""
        root = self.core.settings.vault_path
        entries = self.journal.held()
        older, self._seen = entries & self._seen, entries
        if root is None or not older:
            return 0
        paths = sorted({rel for rel, _ in older})
        async with self.core.note_locks.hold(*paths):  # no write of this process half-done
            applied = await self._in_step(root, paths)
            gone = {entry for entry in older if entry[0] in applied}
            self.journal.discard(gone)
        if gone:
            log.debug("%d REST writes the watcher applied left the journal", len(gone))
        return len(gone)

    async def _in_step(self, root: Path, paths: list[str]) -> set[str]:
        """The paths whose graph note is the disk's: the same content hash, or absent from
        both (a delete applied). A path that cannot be read now is not in step."""
        limit = self.core.settings.max_note_bytes

        def on_disk() -> dict[str, str | None]:
            """Path → the disk's spelling of it, None when absent (as the replay reads it)."""
            return {
                rel: spelled_on_disk(root, rel)
                if symlink_on_path(root, rel) is None and exists_exactly(root / rel, root)
                else None
                for rel in paths
            }

        spelled = await asyncio.to_thread(on_disk)
        present = [name for name in spelled.values() if name is not None]
        read = await asyncio.to_thread(read_group, root, present, limit)
        digests = {name: got[1] for name, got in read if isinstance(got, tuple)}
        rows = await self.core.store.read(
            NOTES_STATE, vault=self.vault, paths=sorted(set(paths) | set(present))
        )
        held = {row["path"]: row["content_hash"] for row in rows}
        return {
            rel
            for rel, name in spelled.items()
            if (name is None and held.get(rel) is None)
            or (name is not None and name in digests and held.get(name) == digests[name])
        }
