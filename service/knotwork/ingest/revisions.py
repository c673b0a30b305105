"""Revisions: what a note asserted before and after a transaction, recorded as it changes.

A note's facts are read by their ``source`` (``notes_facts.cypher``) and compared as stored
fact keys (``models.stored_fact_key``); a revision lists the keys added and removed.

A fact's key ends with its chunk's id, which is derived from the note's path, the chunk's place
and its text: an edit elsewhere in a fact's section, or a move of the note, gives the chunk a
new id though the note asserts the same fact on the same line. Keys are compared without that
last field, so a revision lists only the facts an edit or a move changed. An alias's key holds
it as written, and is compared by the alias's case-folded key, as its entity is matched: a
note written before aliases kept their spelling (``rows.FACTS_RULES`` 16) lists no change of
its aliases when it is next written.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from neo4j import AsyncManagedTransaction

from knotwork.graph.queries.writes import NOTES_FACTS
from knotwork.graph.store import run_query
from knotwork.models import read_fact_key, stored_fact_key
from knotwork.text.keys import entity_key

Asserted = dict[str, list[str]]  # note path → the keys of the facts it asserted


async def facts_of(
    tx: AsyncManagedTransaction, vault: str, paths: list[str]
) -> dict[str, list[str]]:
    if not paths:
        return {}
    rows = await run_query(tx, NOTES_FACTS, vault=vault, paths=paths)
    return {row["path"]: sorted({stored_fact_key(f) for f in row["facts"]}) for row in rows}


def _compared(key: str) -> str:
    """``key`` as revisions compare it: an alias as its case-folded key, as its entity is
    matched (its chunk id kept)."""
    fact = read_fact_key(key)
    if fact is None or fact.relation != "HAS_ALIAS" or fact.extractor != "alias":
        return key
    return str(fact._replace(target=entity_key(fact.target)))


def _beyond(keys: list[str], other: list[str]) -> list[str]:
    """The keys of ``keys`` that ``other`` does not hold, chunk ids aside (as many times as
    ``keys`` holds one more than ``other``: a long line cut in two chunks asserts twice).
    Each side counts its distinct compared keys, as ``facts_of`` reads the graph's: aliases
    differing only in case are one key under rules 15 and one alias each under 16, so they
    count once, and an alias added or removed lists each of its spellings."""
    # The chunk id (a key's last field; ids hold no ``|``) set aside after the fold.
    left = Counter(key.rpartition("|")[0] for key in {_compared(k) for k in other})
    spelled: dict[str, list[str]] = {}  # a compared key → the keys of ``keys`` it stands for
    for key in keys:
        spelled.setdefault(_compared(key), []).append(key)
    out = []
    for compared, stored in spelled.items():
        head = compared.rpartition("|")[0]
        if left[head]:
            left[head] -= 1
        else:
            out += stored
    return sorted(out)


def revision(
    path: str,
    kind: str,
    before: list[str],
    after: list[str],
    old_hash: str | None = None,
    new_hash: str | None = None,
    renamed_from: str | None = None,
) -> dict[str, Any]:
    """What a note's change added and removed (a removed fact under its key as it was), and
    all it asserts now."""
    return {
        "path": path,
        "kind": kind,
        "old_hash": old_hash,
        "new_hash": new_hash,
        "added": _beyond(after, before),
        "removed": _beyond(before, after),
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
