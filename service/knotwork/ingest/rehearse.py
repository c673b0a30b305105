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
The services that wait for edits (the watcher, the API) rehearse a single edit and a delete
too, so the first edit after they start plans nothing either.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Coroutine
from typing import Any

from neo4j import AsyncManagedTransaction

from knotwork.core import Core
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


def start(core: Core, *, edits: bool = False) -> asyncio.Task[None] | None:
    """Rehearse in the background, once per core: a sync's writes, and with ``edits`` those of
    single edits and deletes too (for the services that wait for them). None: done before."""
    phases = {"sync", "edits"} if edits else {"sync"}
    if phases <= core.rehearsed:
        return None
    core.rehearsed |= phases
    return asyncio.create_task(_quietly(rehearse(core, edits=edits)))


async def _quietly(rehearsal: Coroutine[Any, Any, None]) -> None:
    try:
        await rehearsal
    except Exception as exc:  # an optimisation: the writes themselves report what is wrong
        log.debug("write rehearsal skipped: %s", exc)


async def rehearse(core: Core, *, edits: bool = False) -> None:
    """Run a sync's write work (and with ``edits`` a single edit's and a delete's after it)
    over the made-up notes of a scratch vault, in one transaction, rolled back."""
    scratch = Ingestor(
        core,
        root=None,
        vault=f"rehearsal-{uuid.uuid4().hex}",
        extract_enabled=False,
        embed_enabled=False,
    )
    unit = [1.0] + [0.0] * (core.settings.embed_dimension - 1)
    changes: list[Change] = [Upsert(path, text, 0.0, new=True) for path, text in _NOTES.items()]
    drafted = await scratch.draft(changes)
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
    works = [write.batch_work(batch), write.placeholders_work(scratch.vault, names)]
    if edits:
        works.append(write.batch_work(await _edit_and_delete(scratch, unit)))

    async def work(tx: AsyncManagedTransaction) -> None:
        for step in works:
            await step(tx)

    try:
        await core.store.rolled_back(work, in_turn=True)
    finally:
        core.names.pop(scratch.vault, None)


async def _edit_and_delete(scratch: Ingestor, unit: list[float]) -> write.Batch:
    """A single edit's batch, as ``Ingestor.apply`` builds it, of the first note written
    before (so not new), with the second deleted."""
    first, second = list(_NOTES)
    drafted = await scratch.draft([Upsert(first, _NOTES[first] + "\nEdited.\n", 0.0)])
    for d in drafted.drafts.values():
        d.vectors = {c.id: unit for c in d.chunks}
        d.is_new, d.old_hash = False, "rehearsed"  # the graph holds it, in the transaction
    batch = (await scratch.resolve(drafted)).batch
    batch.deletes.append(write.NoteDelete(second, "rehearsed"))
    return batch
