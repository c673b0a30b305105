"""A note new to the graph whose content a note gone from the vault folder holds is that note
moved: the rule a sync finds moves by (ingest/plan.py), for the watcher's writes.

The watcher knows a move from its events, and those can come late, twice or out of order on a
busy machine (a folder moved on while its first move is written, watchdog repeating a move
after it was applied): a move may then name a source the graph no longer holds, or none. Its
note would be written as new, embedded all again and its history cut. Found by its content,
it is renamed from the note it was instead, whatever the events said.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from knotwork.graph.queries.writes import NOTES_STATE, NOTES_WITH_CONTENT, NotesStateRow
from knotwork.graph.store import GraphStore
from knotwork.ingest import draft as drafting
from knotwork.ingest.changes import Change, Upsert
from knotwork.vault.write import exists_exactly


async def find_sources(
    store: GraphStore,
    vault: str,
    root: Path,
    changes: list[Change],
    states: dict[str, NotesStateRow],
) -> set[str]:
    """Give each upsert of a note the graph does not hold (nor the move it names) the note of
    the same content gone from ``root`` as its source, and add that note's state to
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
    rows = await store.read(NOTES_WITH_CONTENT, vault=vault, hashes=hashes)
    written = {c.path for c in changes if isinstance(c, Upsert)}
    claimed = {c.renamed_from for c in changes if isinstance(c, Upsert) and c.renamed_from}
    by_hash: dict[str, list[str]] = {}
    for row in rows:
        if row["path"] not in written and row["path"] not in claimed:
            by_hash.setdefault(row["content_hash"], []).append(row["path"])

    def gone(paths: list[str]) -> list[str]:
        return [p for p in paths if not exists_exactly(root / p, root)]

    for digest, paths in list(by_hash.items()):
        by_hash[digest] = await asyncio.to_thread(gone, paths)
    taken: set[str] = set()
    for u in upserts:
        candidates = by_hash.get(u.note.content_hash, []) if u.note is not None else []
        if candidates:
            u.renamed_from = candidates.pop(0)
            taken.add(u.renamed_from)
    if taken:
        for state in await store.read(NOTES_STATE, vault=vault, paths=sorted(taken)):
            if state["content_hash"] is not None:
                states[state["path"]] = state
    return taken
