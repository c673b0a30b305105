"""Notes into the graph: parse → chunk → embed → write (one transaction per batch) → extract.

A batch of notes (one for a single edit, hundreds in a sync) is prepared outside any
transaction — states read in one query, text parsed and chunked off the event loop
(ingest/states.py), new chunks embedded in one call (ingest/embed.py), mentions and links
resolved in memory (ingest/resolve.py) — and then written in one set-based transaction
(ingest/write.py). The structural write lands first, so text and structure are searchable
before the model has answered; extraction follows per changed chunk (ingest/written.py).
Unchanged chunks (same hash) keep their embedding and extraction, so an edit pays the models
only for what changed. When Ollama is down, chunks land marked ``pending`` and
``retry_pending`` finishes them later (ingest/retry.py).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from knotwork.core import Core
from knotwork.errors import ConfigError
from knotwork.graph import names as names_cache
from knotwork.graph.names import Names
from knotwork.graph.queries.writes import NOTES_GONE_STATE, NOTES_STATE
from knotwork.ingest import draft as drafting
from knotwork.ingest import embed as embedding
from knotwork.ingest import extract, moved, retry, write, written
from knotwork.ingest import resolve as resolving
from knotwork.ingest.batch import NoteDelete, WriteResult
from knotwork.ingest.changes import Change, Delete, Drafted, NoteOutcome, Prepared, Upsert
from knotwork.ingest.modelcalls import EmbedProgress, ModelCalls
from knotwork.ingest.states import delete_outcome, draft_change
from knotwork.ingest.written import BatchProgress
from knotwork.text.language import setting_key
from knotwork.vault.files import NoteText, clean_relpath, read_note

log = logging.getLogger(__name__)

# A move: the note's old path, its new path and its text there (None: read from the folder).
Move = tuple[str, str, str | NoteText | None]


class Ingestor:
    """Upserts, deletes and renames notes of one vault through the shared core."""

    def __init__(
        self,
        core: Core,
        root: Path | None = None,
        vault: str | None = None,
        extract_enabled: bool | None = None,
        embed_enabled: bool = True,
    ) -> None:
        self.core = core
        self.settings = core.settings
        self.root = root or self.settings.vault_path
        self.vault = vault or self.settings.vault_name
        self.extract_enabled = self.settings.extract if extract_enabled is None else extract_enabled
        self.model_tag = f"{self.settings.llm_model}#{extract.EXTRACTOR_VERSION}"
        self.language_setting = setting_key(self.settings.language, self.settings.default_language)
        self.embed_enabled = embed_enabled
        self.models = ModelCalls(
            core, self.vault, self.extract_enabled, embed_enabled, self.model_tag
        )
        # Whether a write waits for the model to extract the chunks it left pending. The
        # watcher turns it off: a slow model would hold its next change (an edit, a delete
        # whose facts stay served meanwhile) for minutes; it extracts beside its writes.
        self.extract_inline = True
        # Whether a note new to the graph is looked for among the notes gone from the folder,
        # by its content (ingest/moved.py). The watcher turns it on: its events may misname a
        # move, and the note would be embedded all again as new.
        self.find_moves = False
        # Who embeds and extracts the chunks a model down left pending, as a warning says:
        # "the watcher", "the server" (their background passes), or `knotwork retry` (None).
        self.finisher: str | None = None
        # verify's scratch sync: the vault checked, whose notes the folder cannot read it keeps.
        self.kept_from: str | None = None

    # -- public calls ----------------------------------------------------------------------

    async def upsert_path(self, path: str) -> NoteOutcome:
        if self.root is None:
            raise ConfigError("no vault folder: set KNOTWORK_VAULT_PATH")
        rel = clean_relpath(path)
        text = await asyncio.to_thread(read_note, self.root, rel, self.settings.max_note_bytes)
        outcome = await self.upsert_text(rel, text.text, text.mtime)
        outcome.warnings[:0] = text.warnings
        return outcome

    async def upsert_text(
        self, path: str, text: str, mtime: float | None = None, renamed_from: str | None = None
    ) -> NoteOutcome:
        """Write one note from its text; nothing is written when its content is unchanged."""
        return (await self.apply([Upsert(path, text, mtime, renamed_from)]))[0]

    async def rename(self, old_path: str, new_path: str, text: str | None = None) -> NoteOutcome:
        """Move a note: ``renames`` of one."""
        return (await self.renames([(old_path, new_path, text)]))[0]

    async def renames(self, moves: list[Move]) -> list[NoteOutcome]:
        """Move notes as one batch, one transaction: each (old path, new path, text; None: read
        there) keeps, for the same content, its chunks, embeddings and extractions; others'
        links follow. Onto a note the graph holds: written, the old path deleted (moved.py)."""
        root, limit = self.root, self.settings.max_note_bytes

        def read(new: str, text: str | NoteText | None) -> tuple[str, float | None]:
            if isinstance(text, NoteText):
                return text.text, text.mtime
            if text is not None:
                return text, None
            if root is None:
                raise ConfigError("no vault folder: set KNOTWORK_VAULT_PATH")
            note = read_note(root, clean_relpath(new), limit)
            return note.text, note.mtime

        texts = await asyncio.to_thread(lambda: [read(new, text) for _, new, text in moves])
        return await self.apply(
            [
                Upsert(new, text, mtime, renamed_from=old)
                for (old, new, _), (text, mtime) in zip(moves, texts, strict=True)
            ]
        )

    async def delete(self, path: str) -> NoteOutcome:
        return (await self.apply([Delete(path)]))[0]

    async def apply(self, changes: list[Change]) -> list[NoteOutcome]:
        """Apply changes as one batch against the vault's current names."""
        if changes and all(isinstance(c, Delete) for c in changes):
            return await self._apply_deletes([c for c in changes if isinstance(c, Delete)])
        drafted = await self.embed(await self.draft(changes))
        async with self.core.names_lock:  # the names read stay the graph's until written
            prepared = await self.resolve(drafted)
            results = await self._write(prepared)
        return await self._finish(prepared, results, link=True)

    async def _apply_deletes(self, changes: list[Delete]) -> list[NoteOutcome]:
        """``apply`` for deletes alone: nothing to draft or embed, so the names lock is taken
        first and one read gives the notes' states with the names stamp, not two reads."""
        async with self.core.names_lock:
            for change in changes:
                change.path = clean_relpath(change.path)
            paths = [c.path for c in changes]
            [row] = await self.core.store.read(NOTES_GONE_STATE, vault=self.vault, paths=paths)
            states = {n["path"]: n for n in row["notes"]}
            outcomes: list[NoteOutcome] = []
            deletes: list[NoteDelete] = []
            for path in paths:
                delete_outcome(path, states, outcomes, deletes)
            drafted = Drafted(states, outcomes, {}, deletes)
            prepared = await self.resolve(drafted, stamp=row["tokens"])
            results = await self._write(prepared)
        return await self._finish(prepared, results, link=True)

    # -- the stages of a batch (a sync overlaps them across batches: see ingest/sync.py) -----

    async def prepare(self, changes: list[Change], names: Names | None = None) -> Prepared:
        """Read states, draft, embed and resolve mentions and links for a batch: ``draft``,
        ``embed`` and ``resolve`` in turn."""
        return await self.resolve(await self.embed(await self.draft(changes)), names)

    async def commit(
        self, prepared: Prepared, progress: BatchProgress | None = None
    ) -> list[NoteOutcome]:
        """Write a prepared batch of a sync, then extract its new chunks; the sync links new
        entities once, at its end. ``progress``: told the notes written, then each chunk
        extracted (a sync's progress bar)."""
        return await self._finish(prepared, await self._write(prepared), progress)

    # -- steps -----------------------------------------------------------------------------

    async def draft(self, changes: list[Change]) -> Drafted:
        """States read and notes drafted (parsed, chunked, structural facts) against them
        (ingest/states.py): what needs neither names nor models. Their new chunks are embedded
        by ``embed``."""
        for change in changes:
            change.path = clean_relpath(change.path)
            if isinstance(change, Upsert) and change.renamed_from:
                change.renamed_from = clean_relpath(change.renamed_from)
        wanted = [c.path for c in changes if not (isinstance(c, Upsert) and c.new)]
        wanted += [c.renamed_from for c in changes if isinstance(c, Upsert) and c.renamed_from]
        rows = (
            await self.core.store.read(NOTES_STATE, vault=self.vault, paths=wanted)
            if wanted
            else []
        )
        states = {r["path"]: r for r in rows if r["content_hash"] is not None}
        changes = await asyncio.to_thread(moved.over_notes, changes, states, self.root)
        taken: set[str] = set()
        if self.find_moves and self.root is not None:
            find, size = moved.find_sources, self.settings.chunk_size  # the moves events missed
            taken = await find(self.core.store, self.vault, self.root, changes, states, size)
        outcomes: list[NoteOutcome] = []
        drafts: dict[str, drafting.Draft] = {}
        deletes: list[NoteDelete] = []
        upserts = [c for c in changes if isinstance(c, Upsert)]
        made_all = iter(  # one trip to a worker thread for the batch
            await asyncio.to_thread(
                lambda: [
                    draft_change(u, states, self.vault, self.settings, self.language_setting)
                    for u in upserts
                ]
            )
            if upserts
            else []
        )
        for change in changes:
            if isinstance(change, Delete):
                if change.path in taken:  # the upsert moving it takes it from the graph:
                    # said once, as that move, not as a delete too (nothing left to delete)
                    outcomes.append(NoteOutcome(change.path, "missing"))
                else:
                    delete_outcome(change.path, states, outcomes, deletes)
                continue
            outcome, made = next(made_all)
            outcomes.append(outcome)
            if made:
                drafts[made.path] = made
        return Drafted(states, outcomes, drafts, deletes)

    async def embed(self, drafted: Drafted, progress: EmbedProgress | None = None) -> Drafted:
        """Every draft's new chunks embedded in one call (the client batches it further; a
        sync's ``progress`` is told each slice); a model that cannot answer leaves them
        pending, with a warning on the note, as does garbage for some texts alone (theirs,
        stamped as refused when written). ManifestMismatchError, before the model is asked,
        when the graph was re-embedded with another model meanwhile (``Core.check_manifest``):
        its vectors would be stored where the vector index ignores them. See ingest/embed.py."""
        return await embedding.embed(self, drafted, progress)

    async def resolve(
        self, drafted: Drafted, names: Names | None = None, stamp: list[str] | None = None
    ) -> Prepared:
        """Mentions and links resolved, the writer's rows built (ingest/resolve.py).

        ``names``: the vault's names after the whole change, which links and mentions resolve
        against (a sync passes them, knowing every note it will write, and moves other notes'
        mentions and links once at its end). Without them the batch stands alone: the graph's
        names with this batch applied serve, and the batch moves the others itself.
        ``stamp``: the names stamp's tokens, when read already under the names lock.
        """
        return await resolving.resolve(self, drafted, names, stamp)

    async def _write(self, prepared: Prepared) -> dict[str, WriteResult]:
        batch = prepared.batch
        if (
            batch.writes
            or batch.deletes
            or batch.reverse_keys
            or batch.names_token
            or batch.owed is not None
        ):
            results = await write.write_batch(self.core.store, batch)
        else:
            results = {}
        if batch.names_token:
            names_cache.written(
                self.core.names, self.vault, prepared.view, prepared.token, batch.names_token
            )
        return results

    async def _finish(
        self,
        prepared: Prepared,
        results: dict[str, WriteResult],
        progress: BatchProgress | None = None,
        *,
        link: bool = False,
    ) -> list[NoteOutcome]:
        """Outcomes from the write's results; extraction of new chunks; with ``link``, new
        entities linked (a sync's batches leave that to its end)."""
        written.record_results(prepared, results)
        if progress is not None:
            progress.written(prepared.outcomes)
        on_extracted = progress.extracted if progress is not None else None
        if self.extract_inline:
            await written.extract_pending(self.models, prepared, on_extracted)
        if link and prepared.batch.writes:
            await self.link_entities()
        return prepared.outcomes

    async def retry_pending(
        self,
        limit: int = 10_000,
        *,
        ask_again: bool = True,
        warnings: list[str] | None = None,
        progress: EmbedProgress | None = None,
    ) -> tuple[int, int]:
        """Embed and extract chunks left pending while Ollama was down: (embedded, extracted);
        ``warnings`` gets why an extraction was postponed or failed, ``progress`` each slice
        embedded and chunk extracted. See ``retry.retry_pending``."""
        return await retry.retry_pending(
            self.models, limit, ask_again=ask_again, warnings=warnings, progress=progress
        )

    async def link_entities(self) -> int:
        """Embed new entities' names and link similar ones; see ``similar.link_new_entities``."""
        return await self.models.link_entities()
