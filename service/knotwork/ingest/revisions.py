"""Revisions: what a note asserted before and after a transaction, recorded as it changes.

A note's facts are read by their ``source`` (``notes_facts.cypher``) and compared as stored
fact keys (``models.stored_fact_key``); a revision lists the keys added and removed.

A fact's key ends with its chunk's id, which is derived from the note's path: a moved note's
chunks get new ids, so a rename compares the facts it had with those of its chunks as they
now are (``moved_chunks``), and lists only what the move (and any edit with it) changed.
"""

from __future__ import annotations

from typing import Any

from neo4j import AsyncManagedTransaction

from knotwork.graph.queries.writes import NOTES_FACTS
from knotwork.graph.store import run_query
from knotwork.ingest.chunk import chunk_id
from knotwork.models import stored_fact_key

Asserted = dict[str, list[str]]  # note path → the keys of the facts it asserted


async def facts_of(
    tx: AsyncManagedTransaction, vault: str, paths: list[str]
) -> dict[str, list[str]]:
    if not paths:
        return {}
    rows = await run_query(tx, NOTES_FACTS, vault=vault, paths=paths)
    return {row["path"]: sorted({stored_fact_key(f) for f in row["facts"]}) for row in rows}


def moved_chunks(vault: str, old_path: str, chunks: list[dict[str, Any]]) -> dict[str, str]:
    """Old chunk id → new chunk id for the chunks of a note moved from ``old_path`` that are
    the same there and here (the same text at the same place in the note: ``chunk_id``)."""
    return {chunk_id(vault, old_path, c["ord"], c["hash"]): c["id"] for c in chunks}


def _in_chunk(key: str, moved: dict[str, str]) -> str:
    """``key`` with its chunk id (its last field) as the chunk is now called."""
    head, sep, chunk = key.rpartition("|")
    return f"{head}{sep}{moved[chunk]}" if sep and chunk in moved else key


def revision(
    path: str,
    kind: str,
    before: list[str],
    after: list[str],
    old_hash: str | None = None,
    new_hash: str | None = None,
    renamed_from: str | None = None,
    moved: dict[str, str] | None = None,
) -> dict[str, Any]:
    """What a note's change added and removed, and all it asserts now. ``moved``: a rename's
    chunks (``moved_chunks``), so a fact kept by the move is neither removed nor added; a
    removed fact is listed under its key as it was."""
    was = {_in_chunk(k, moved or {}): k for k in before}
    now = set(after)
    return {
        "path": path,
        "kind": kind,
        "old_hash": old_hash,
        "new_hash": new_hash,
        "added": sorted(now - was.keys()),
        "removed": sorted(was[k] for k in was.keys() - now),
        "asserted": sorted(after),
        "renamed_from": renamed_from,
    }


async def lost_revisions(
    tx: AsyncManagedTransaction,
    vault: str,
    lost: Asserted,
    changes: dict[str, tuple[list[str], list[str]]] | None = None,
) -> list[dict[str, Any]]:
    """A 'mentions' revision for each note that lost mentions (``lost``) or had them rewritten
    (``changes``: removed, added), read against what it asserts now."""
    changes = changes or {}
    paths = sorted(set(changes) | set(lost))
    after = await facts_of(tx, vault, paths)
    revisions = []
    for path in paths:
        removed, added = changes.get(path, ([], []))
        now = after.get(path, [])
        before = sorted((set(now) - set(added)) | set(removed) | set(lost.get(path, [])))
        if before != now:
            revisions.append(revision(path, "mentions", before, now))
    return revisions
