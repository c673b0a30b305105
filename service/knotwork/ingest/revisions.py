"""Revisions: what a note asserted before and after a transaction, recorded as it changes.

A note's facts are read by their ``source`` (``notes_facts.cypher``) and compared as stored
fact keys (``models.stored_fact_key``); a revision lists the keys added and removed.
"""

from __future__ import annotations

from typing import Any

from neo4j import AsyncManagedTransaction

from knotwork.graph.queries.writes import NOTES_FACTS
from knotwork.graph.store import run_query
from knotwork.models import stored_fact_key

Asserted = dict[str, list[str]]  # note path → the keys of the facts it asserted


async def facts_of(
    tx: AsyncManagedTransaction, vault: str, paths: list[str]
) -> dict[str, list[str]]:
    if not paths:
        return {}
    rows = await run_query(tx, NOTES_FACTS, vault=vault, paths=paths)
    return {row["path"]: sorted({stored_fact_key(f) for f in row["facts"]}) for row in rows}


def revision(
    path: str,
    kind: str,
    before: list[str],
    after: list[str],
    old_hash: str | None = None,
    new_hash: str | None = None,
    renamed_from: str | None = None,
) -> dict[str, Any]:
    return {
        "path": path,
        "kind": kind,
        "old_hash": old_hash,
        "new_hash": new_hash,
        "added": sorted(set(after) - set(before)),
        "removed": sorted(set(before) - set(after)),
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
