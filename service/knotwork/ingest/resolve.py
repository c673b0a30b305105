"""A drafted and embedded batch against the vault's names: mentions and links resolved, the
writer's rows built (ingest/draft.py's ``note_write``) and, for a batch that stands alone, what
it changes of the other notes' mentions and links, which its own transaction moves.

Between ``Ingestor.embed`` and the write (ingest/write.py): the names come from the graph's
cached names (graph/names.py) with the batch applied, or from a sync, which knows every note it
will write and moves the other notes' mentions and links once, at its end.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING

from knotwork.graph import names as names_cache
from knotwork.graph.names import Names, NameView
from knotwork.ingest import draft as drafting
from knotwork.ingest.batch import Batch
from knotwork.ingest.changes import Drafted, Prepared
from knotwork.ingest.facts import new_note_keys
from knotwork.ingest.states import changed_names

if TYPE_CHECKING:  # ingestor.py calls this as its ``resolve`` stage
    from knotwork.ingest.ingestor import Ingestor


async def resolve(
    ingestor: Ingestor,
    drafted: Drafted,
    names: Names | None = None,
    stamp: list[str] | None = None,
) -> Prepared:
    """Mentions and links resolved, the writer's rows built; see ``Ingestor.resolve``."""
    standalone, token = names is None, None
    states, drafts, deletes = drafted.states, drafted.drafts, drafted.deletes
    core, settings = ingestor.core, ingestor.settings
    view: NameView | None = None
    if names is None:  # the graph's names, as this batch leaves them
        token, base = await names_cache.cached(core.store, core.names, ingestor.vault, stamp)
        view = names = NameView(base)
        for d in drafts.values():
            if d.renamed_from:
                view.remove(d.renamed_from)
            view.put(d.path, d.props["lpath"], d.names)
        for gone in deletes:
            view.remove(gone.path)
    mentioned = names if settings.mentions else None
    writes = await asyncio.to_thread(
        lambda: [
            drafting.note_write(
                d, ingestor.model_tag, settings.llm_model, ingestor.extract_enabled, mentioned
            )
            for d in drafts.values()
        ]
    )
    outcomes = {o.path: o for o in drafted.outcomes}
    for write in writes:  # mentions past their cap, said as the draft's warnings are
        if write.warnings and write.path in outcomes:
            outcomes[write.path].warnings += write.warnings
    batch = Batch(ingestor.vault, names, writes, deletes, mentioned)
    if standalone:
        batch.reverse_keys = changed_names(drafts.values(), deletes, states)
        written = changed_names(drafts.values(), [], states)
        batch.deleted_keys = sorted(set(batch.reverse_keys) - set(written))
        batch.exclude = sorted(drafts)
        # Other notes' links to the keys of notes new here move to them.
        batch.link_keys = new_note_keys(d.path for d in drafts.values() if d.is_new)
        # Links resolve by path: a note that appears, moves or goes changes the names
        # even when it has no mention key ("AI.md": too short to be mentioned).
        moved = any(d.is_new or d.renamed_from for d in drafts.values())
        if batch.reverse_keys or deletes or moved:
            batch.names_token = uuid.uuid4().hex
    return Prepared(batch, drafted.outcomes, drafts, view, token)
