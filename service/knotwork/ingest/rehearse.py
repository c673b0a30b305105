"""A sync's write queries planned before its first batch: a rehearsal, rolled back.

Neo4j plans a query on its first use on a server and keeps the plan for that text and those
scalar parameter types (the values inside list and map parameters do not count). A first sync
on a new server or database spends one to several seconds planning some twenty write queries,
and it spends them in the writer, which has nothing to write before the notes are read and
their names known — while the server's cores are idle. A rehearsal runs the writer's own
transaction work (``write.batch_work``, ``write.placeholders_work``, so the same query texts
with the same parameter types) over two made-up notes of a scratch vault, in one transaction
that is always rolled back: nothing of it is ever committed or seen by another transaction. It
holds the write turn, so the writer does not plan the same query beside it, and it is only an
optimisation: a sync whose rehearsal fails or is cut short loses nothing but the head start.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Coroutine
from typing import Any

from neo4j import AsyncManagedTransaction

from knotwork.graph.names import NameIndex
from knotwork.ingest import write
from knotwork.ingest.changes import Change, Upsert
from knotwork.ingest.facts import new_note_keys
from knotwork.ingest.ingestor import Ingestor

log = logging.getLogger(__name__)

# Two notes that reach every query of a sync's last batch: frontmatter entities and aliases,
# two sections (a chunk chain), links both ways and to a missing note (a placeholder), and
# unlinked mentions of each other's titles.
_NOTES = {
    "rehearsal/a.md": (
        "---\naliases: [Rehearsal alpha]\ntags: [rehearsal]\nstatus: draft\n---\n"
        "# Rehearsal alpha\n\nLinks to [[b]] and to [[nowhere]]; mentions Rehearsal beta.\n\n"
        "## Second section\n\nRehearsal beta again.\n"
    ),
    "rehearsal/b.md": (
        "---\naliases: [Rehearsal beta]\n---\n# Rehearsal beta\n\n"
        "Links back to [[a]] and mentions Rehearsal alpha.\n\n## More\n\nText.\n"
    ),
}


def start(ingestor: Ingestor) -> asyncio.Task[None] | None:
    """Rehearse a sync's writes in the background, once per core (None when done before)."""
    core = ingestor.core
    if core.writes_rehearsed:
        return None
    core.writes_rehearsed = True
    return asyncio.create_task(_quietly(rehearse(ingestor)))


async def _quietly(rehearsal: Coroutine[Any, Any, None]) -> None:
    try:
        await rehearsal
    except Exception as exc:  # an optimisation: the sync itself reports what is wrong
        log.debug("write rehearsal skipped: %s", exc)


async def rehearse(ingestor: Ingestor) -> None:
    """Run a sync's write work over the made-up notes in a scratch vault, rolled back."""
    scratch = Ingestor(
        ingestor.core,
        root=None,
        vault=f"rehearsal-{uuid.uuid4().hex}",
        extract_enabled=False,
        embed_enabled=False,
    )
    changes: list[Change] = [Upsert(path, text, 0.0, new=True) for path, text in _NOTES.items()]
    drafted = await scratch.draft(changes)
    unit = [1.0] + [0.0] * (ingestor.settings.embed_dimension - 1)
    names = NameIndex()
    for d in drafted.drafts.values():
        d.vectors = {c.id: unit for c in d.chunks}
        names.put(d.path, d.props["lpath"], d.names)
    batch = (await scratch.resolve(drafted, names)).batch
    # As the last batch of a sync: other notes' mentions and links move, the names change.
    batch.reverse_keys = sorted({key for d in drafted.drafts.values() for key in d.names})
    batch.exclude = sorted(drafted.drafts)
    batch.link_keys = new_note_keys(drafted.drafts)
    batch.names_token = uuid.uuid4().hex

    async def work(tx: AsyncManagedTransaction) -> None:
        await write.batch_work(batch)(tx)
        await write.placeholders_work(scratch.vault, names)(tx)

    await ingestor.core.store.rolled_back(work, in_turn=True)
