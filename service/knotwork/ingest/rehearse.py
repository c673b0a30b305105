"""The write queries planned before the first edit needs them: a rehearsal, rolled back.

Neo4j plans a query on its first use on a server and keeps the plan for that text and those
scalar parameter types (the values inside list and map parameters do not count, but an empty
list is a type of its own: bench/RESULTS.md, "Deletes: one round trip less"). After a
server start the first edit a watcher or the API writes plans a dozen queries on a cold
server: 1.8 to 2.3 s, where the third edit takes 0.2 s (bench/RESULTS.md, "Writes rehearsed").
A rehearsal runs the writer's own transaction work (``write.batch_work``,
``settle.placeholders_work``: the same query texts with the same parameter types) over three
made-up notes of a scratch vault — new notes as a sync's last batch writes them, then a single
edit of one and another's delete — in one transaction that is always rolled back: nothing of
it is committed or seen by another transaction. Neo4j keeps a second plan of a query for a
transaction that has written nothing yet, as a single delete's first statements run: the
edit's and the delete's statements run once more, each first in a rolled-back transaction
of its own. The services start it when they are up. It
holds the write turn, so a write arriving meanwhile waits for plans it needs rather than making
them a second time beside it, and it is only an optimisation: one that fails or is cut short
loses nothing. A sync does not rehearse: on two cores its own reading and parsing leaves the
server no idle core to plan on, and rehearsing first measured no faster.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Coroutine
from typing import Any, cast

from neo4j import AsyncManagedTransaction, AsyncResult

from knotwork.core import Core
from knotwork.graph.names import NameIndex
from knotwork.graph.queries.writes import LINKS_RERESOLVE, NOTES_GONE_STATE
from knotwork.graph.store import Work, run_query
from knotwork.ingest import settle, write
from knotwork.ingest.batch import Batch, NoteDelete
from knotwork.ingest.changes import Change, Upsert
from knotwork.ingest.facts import new_note_keys
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.settle import key_rows

log = logging.getLogger(__name__)

# Notes that reach every query of a sync's last batch: frontmatter entities and aliases, two
# sections (a chunk chain), links both ways and to a missing note (a placeholder), and
# unlinked mentions of each other's titles; the third only mentions the second (whose delete
# then takes a mention no rewrite brings back).
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
    "rehearsal/c.md": "# Rehearsal gamma\n\nMentions Rehearsal beta only.\n",
}


def start(core: Core) -> asyncio.Task[None] | None:
    """Rehearse in the background, once per core (None: started before)."""
    if core.writes_rehearsed:
        return None
    core.writes_rehearsed = True
    return asyncio.create_task(_quietly(rehearse(core)))


async def _quietly(rehearsal: Coroutine[Any, Any, None]) -> None:
    try:
        await rehearsal
    except Exception as exc:  # an optimisation: the writes themselves report what is wrong
        log.debug("write rehearsal skipped: %s", exc)


async def rehearse(core: Core) -> None:
    """Run a sync's last batch, a single edit and a delete over the made-up notes of a scratch
    vault, in one transaction, rolled back."""
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
    # As the last batch of a sync: the names change, other notes' mentions and links move.
    batch.names_token = uuid.uuid4().hex
    batch.reverse_keys = sorted({key for d in drafted.drafts.values() for key in d.names})
    batch.exclude = sorted(drafted.drafts)
    batch.link_keys = new_note_keys(drafted.drafts)
    batch.owed = {"reverse": [], "links": []}
    works = [write.batch_work(batch), settle.placeholders_work(scratch.vault, names)]
    edit, delete = await _edit_and_delete(scratch, unit, names)
    gone = [d.path for d in delete.deletes]

    single: list[tuple[str, object]] = []  # the edit's and the delete's statements

    async def work(tx: AsyncManagedTransaction) -> None:
        for step in works:
            await step(tx)
        noted = cast(AsyncManagedTransaction, _Noting(tx, single))
        await write.batch_work(edit)(noted)
        # What a delete reads before its transaction (Ingestor.apply), then the delete.
        await run_query(tx, NOTES_GONE_STATE, vault=scratch.vault, paths=gone)
        await write.batch_work(delete)(noted)

    try:
        await core.store.rolled_back(work)
        # Above, everything ran after the sync's batch had written; a delete starts unwritten,
        # and stays so while its queries find nothing to change (a note that stated no fact).
        # Each statement again, first in a transaction of its own (over notes rolled back: it
        # finds nothing), has those plans made too, which the first delete after a start made
        # (0.1-0.7 s: bench/RESULTS.md, "Two latency outliers").
        await core.store.read(NOTES_GONE_STATE, vault=scratch.vault, paths=gone)
        for text, params in single:
            await core.store.rolled_back(_statement(text, params))
        # And the links to a deleted note re-pointed when its delete found no fact of its own
        # to remove (the notes above state some): the links' rows as such a delete sends them.
        keys = key_rows(delete.deleted_keys, names)
        await core.store.rolled_back(_relink(scratch.vault, keys))
    finally:
        core.names.pop(scratch.vault, None)


async def _edit_and_delete(scratch: Ingestor, unit: list[float], names: NameIndex) -> list[Batch]:
    """A single edit's batch of the first note written before (so not new), then the second
    note's delete, each as ``Ingestor.apply`` builds it. The edit rewrites the mentions of
    the second note, which names the first; the third note mentions the second, as the
    sync's batch wrote it, so the delete takes that mention and records it in the third
    note's revision (the second note's names, borne by no other note, are looked for nowhere
    else: ``Batch.deleted_keys``)."""
    first, second, _ = list(_NOTES)
    drafted = await scratch.draft([Upsert(first, _NOTES[first] + "\nEdited.\n", 0.0)])
    for d in drafted.drafts.values():
        d.vectors = {c.id: unit for c in d.chunks}
        d.is_new, d.old_hash = False, "rehearsed"  # the graph holds it, in the transaction
    edit = (await scratch.resolve(drafted)).batch
    keys = sorted(names.keys_of(second))
    names.remove(second)
    delete = Batch(scratch.vault, names, [], [NoteDelete(second, "rehearsed")], names)
    delete.reverse_keys, delete.deleted_keys, delete.names_token = keys, keys, uuid.uuid4().hex
    return [edit, delete]


class _Noting:
    """A transaction that notes each statement run through it, then runs it."""

    def __init__(self, tx: AsyncManagedTransaction, into: list[tuple[str, object]]) -> None:
        self._tx, self._into = tx, into

    async def run(self, query: str, parameters: object = None, **kwargs: Any) -> AsyncResult:
        self._into.append((query, parameters))
        return await self._tx.run(query, parameters, **kwargs)  # type: ignore[arg-type]


def _statement(text: str, params: object) -> Work[None]:
    async def work(tx: AsyncManagedTransaction) -> None:
        await (await tx.run(text, params)).consume()  # type: ignore[arg-type]

    return work


def _relink(vault: str, keys: list[dict[str, str | None]]) -> Work[None]:
    async def work(tx: AsyncManagedTransaction) -> None:
        await run_query(tx, LINKS_RERESOLVE, vault=vault, keys=keys)

    return work
