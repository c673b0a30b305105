"""A note new to the graph whose content a note gone from the vault folder holds is that note
moved, and so is one of its file name and most of its text, moved and edited: the rules a sync
finds moves by (ingest/move_pairs.py, used by ingest/plan.py), for the watcher's writes.

The watcher knows a move from its events, and those can come late, twice or out of order on a
busy machine (a folder moved on while its first move is written, watchdog repeating a move
after it was applied): a move may then name a source the graph no longer holds, or none. Its
note would be written as new, embedded all again and its history cut. Found by its content,
it is renamed from the note it was instead, whatever the events said. A move onto a path the
graph holds a note at is no rename at all (``over_notes``): that note's edit, as a sync has it.
"""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import Mapping
from pathlib import Path

from knotwork.errors import KnotworkError
from knotwork.graph.queries.writes import NOTES_STATE, NOTES_WITH_CONTENT, NotesStateRow
from knotwork.graph.store import GraphStore
from knotwork.ingest import draft as drafting
from knotwork.ingest.changes import Change, Delete, Upsert
from knotwork.ingest.move_pairs import by_content, edited_moves, file_name
from knotwork.vault.write import exists_exactly


async def find_sources(
    store: GraphStore,
    vault: str,
    root: Path,
    changes: list[Change],
    states: dict[str, NotesStateRow],
    chunk_size: int,
) -> set[str]:
    """Give each upsert of a note the graph does not hold (nor the move it names) the note
    gone from ``root`` it is, moved (ingest/move_pairs.py: of the same content, or else of the
    same file name and most of the text, edited), as its source, and add that note's state to
    ``states``. Returns the sources taken: a delete of one in the batch deletes nothing."""
    upserts = [
        c
        for c in changes
        if isinstance(c, Upsert)
        and not c.new
        and c.path not in states
        and (c.renamed_from is None or c.renamed_from not in states)
    ]
    if not upserts:
        return set()

    def parse() -> None:  # parsed once: the draft uses the note parsed here
        for u in upserts:
            u.note = u.note or drafting.parse(u.path, u.text)

    await asyncio.to_thread(parse)
    hashes = sorted({u.note.content_hash for u in upserts if u.note is not None})
    names = sorted({file_name(u.path) for u in upserts})
    rows = await store.read(NOTES_WITH_CONTENT, vault=vault, hashes=hashes, names=names)
    written = {c.path for c in changes if isinstance(c, Upsert)}
    claimed = {c.renamed_from for c in changes if isinstance(c, Upsert) and c.renamed_from}
    held = {
        r["path"]: r["content_hash"]
        for r in rows
        if r["path"] not in written and r["path"] not in claimed
    }

    def gone(paths: list[str]) -> list[str]:
        return [p for p in paths if _gone(root, p)]

    gone_now = {p: held[p] for p in await asyncio.to_thread(gone, sorted(held))}
    found = {u.path: u.note.content_hash for u in upserts if u.note is not None}
    by_path = {u.path: u for u in upserts}
    taken: set[str] = set()
    for path, source in by_content(gone_now, found).items():
        by_path[path].renamed_from = source
        taken.add(source)
    if taken:
        for state in await store.read(NOTES_STATE, vault=vault, paths=sorted(taken)):
            if state["content_hash"] is not None:
                states[state["path"]] = state
    # Left on both sides: a note moved and edited, when its name and text say so unambiguously.
    left = [u for u in upserts if u.renamed_from not in taken]
    edited = await edited_moves(store, vault, gone_now.keys() - taken, left, chunk_size)
    states |= edited
    taken |= edited.keys()
    return taken


def over_notes(
    changes: list[Change], states: Mapping[str, object], root: Path | None
) -> list[Change]:
    """A move onto a note the graph holds is written as a sync writes it (ingest/plan.py moves
    only onto a path holding no note): that note written with the new text, its history going
    on, and the old path deleted. Renamed, the note there would lose its whole history. A move
    whose source another change of the batch writes (a swap ``a → b``, ``b → a``; ``b → c``
    beside ``a → b``) is no move either: that note stays, with the other text, and the new path
    is written, as a sync has it (renamed, both would land on one node and a note be lost).
    A move onto the same file under another spelling (a case or Unicode form that a
    case-insensitive or normalising file system takes as the same name) stays a rename."""
    out = list(changes)
    written = {c.path for c in changes if isinstance(c, Upsert)}
    deleted = {c.path for c in changes if isinstance(c, Delete)}
    for u in changes:
        source = u.renamed_from if isinstance(u, Upsert) else None
        if not (isinstance(u, Upsert) and source and source != u.path):
            continue
        if (u.path not in states and source not in written) or _same_file(root, source, u.path):
            continue
        u.renamed_from = None
        gone = source not in deleted and source not in written and not _on_disk(root, source)
        if source in states and gone:  # a source still there was copied: its note stays
            out.append(Delete(source))
            deleted.add(source)
    return out


def _on_disk(root: Path | None, path: str) -> bool:
    return root is not None and os.path.lexists(root / path)


def _same_file(root: Path | None, a: str, b: str) -> bool:
    """Whether the vault's file system takes both paths for one file."""
    try:
        return root is not None and os.path.samefile(root / a, root / b)
    except OSError:  # either missing: two files (a case-sensitive disk), or none to compare
        return False


def _gone(root: Path, path: str) -> bool:
    """Whether the note at ``path`` is gone from ``root`` as spelled (a case variant on disk
    is another name: gone). A folder that cannot be listed or a disk that fails is no proof
    (a sync keeps such notes too): their notes are not taken as moved."""
    try:
        if exists_exactly(root / path, root, strict=True):
            return False
        os.lstat(root / path)
    except KnotworkError:  # the disk or mount failing (VaultUnavailableError)
        return False
    except OSError as exc:
        return exc.errno in (errno.ENOENT, errno.ENOTDIR)
    return True
