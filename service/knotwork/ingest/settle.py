"""What a transaction leaves to settle once its notes are written: links moved to the notes
their keys name now, orphaned entities and placeholders deleted, placeholders named again by
their links; and the note placeholders a sync left unwritten, dropped."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from neo4j import AsyncManagedTransaction

from knotwork.graph.names import NameIndex, Names, NameView
from knotwork.graph.queries import Query
from knotwork.graph.queries.writes import (
    LINKS_RERESOLVE,
    NOTES_PLACEHOLDERS_COUNT,
    NOTES_PLACEHOLDERS_DELETE,
    ORPHANS_DELETE,
    REVISIONS_APPEND,
    UNRESOLVED_NAMES,
    RelinkedRow,
    Spelled,
)
from knotwork.graph.store import GraphStore, Work, run_query
from knotwork.ingest.revisions import Asserted, lost_revisions
from knotwork.models import stored_fact_key


@dataclass
class Touched:
    """The nodes a transaction changed the relationships of: orphan candidates (entities and
    placeholders), and placeholders to name again, with the spellings of the links they
    gained. Each query lists apart what may be an orphan and what may need a new name, and
    facts_delete and links_reresolve only what does (left with no relationship; a name no
    link spells any more; a new placeholder they name themselves), so a delete whose
    entities and placeholders keep other links runs neither query."""

    ids: list[str] = field(default_factory=list)
    placeholders: list[str] = field(default_factory=list)
    spelled: list[Spelled] = field(default_factory=list)

    async def relink(
        self, tx: AsyncManagedTransaction, query: Query[RelinkedRow], /, **params: Any
    ) -> None:
        """Run a query that writes or moves links, and keep what it touched."""
        rows = await run_query(tx, query, **params)
        if rows:
            self.ids += rows[0]["touched"]
            self.placeholders += rows[0]["placeholders"]
            self.spelled += rows[0]["spelled"]

    async def settle(self, tx: AsyncManagedTransaction) -> None:
        """Delete the orphans left, and name the placeholders again by their links."""
        if self.ids:
            await run_query(tx, ORPHANS_DELETE, ids=sorted(set(self.ids)))
        if not self.placeholders:
            return
        added: dict[str, set[str]] = {}
        for s in self.spelled:
            added.setdefault(s["id"], set()).add(s["spelling"])
        placeholders = [
            {"id": i, "added": sorted(added.get(i, ()))} for i in sorted(set(self.placeholders))
        ]
        # A placeholder is named by the links it has now, not by the first one written.
        await run_query(tx, UNRESOLVED_NAMES, placeholders=placeholders)


def key_rows(keys: Iterable[str], targets: Names) -> list[dict[str, str | None]]:
    """links_reresolve rows: each key with the note it names now (or None)."""
    return [
        {"key": k, "stem": k.rsplit("/", 1)[-1], "target": targets.link_target(k)}
        for k in sorted(set(keys))
        if k
    ]


async def drop_placeholders(store: GraphStore, vault: str, names: NameIndex) -> None:
    """Delete the note placeholders a sync left unwritten (their notes failed): the links to
    them re-resolve (to another note of ``names``, the sync's, or an Unresolved
    placeholder), mentions of them go, in a revision of each note that made them."""
    await store.write_transaction(placeholders_work(vault, names))


def placeholders_work(vault: str, names: NameIndex) -> Work[None]:
    """``drop_placeholders``'s transaction work."""

    async def work(tx: AsyncManagedTransaction) -> None:
        # Counted first: the delete is the costlier query to plan, and most syncs leave none.
        counted = await run_query(tx, NOTES_PLACEHOLDERS_COUNT, vault=vault)
        if not counted[0]["placeholders"]:
            return
        rows = await run_query(tx, NOTES_PLACEHOLDERS_DELETE, vault=vault)
        if not rows:
            return
        lost: Asserted = {}
        for gone in rows[0]["lost"]:
            lost.setdefault(gone["path"], []).append(stored_fact_key(gone["fact"]))
        # Appended even without a revision: it renews the vault's generation, and what
        # retrieval kept (a walk through a placeholder gone) is stale.
        appended = {"revisions": await lost_revisions(tx, vault, lost), "token": None}
        await run_query(tx, REVISIONS_APPEND, vault=vault, write=appended)
        if not rows[0]["keys"]:
            return
        targets = NameView(names)
        for path in rows[0]["paths"]:
            targets.remove(path)
        placeholders = list(rows[0]["placeholders"])
        touched = Touched(placeholders, list(placeholders), list(rows[0]["spelled"]))
        keys = key_rows(rows[0]["keys"], targets)
        await touched.relink(tx, LINKS_RERESOLVE, vault=vault, keys=keys)
        await touched.settle(tx)

    return work
