"""One note into the graph: parse → chunk → embed → write (one transaction) → extract.

The structural write lands first, so text and structure are searchable before the model has
answered; extraction follows per changed chunk. Unchanged chunks (same hash) keep their
embedding and extraction, so an edit pays the models only for what changed. When Ollama is
down, chunks land marked ``pending`` and ``retry_pending`` finishes them later.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from knotwork import extract, mentions, similar, write
from knotwork.chunk import chunk_note, embed_text
from knotwork.core import Core
from knotwork.errors import KnotworkError
from knotwork.facts import MAX_KEY_CHARS, entity_key, split_oversized, structural_facts
from knotwork.models import Chunk, Fact
from knotwork.parse import parse_note
from knotwork.rows import FACTS_VERSION, canonical, fact_rows, note_props
from knotwork.vault import clean_relpath, read_note

log = logging.getLogger(__name__)
MODEL_BACKOFF_S = 30.0


@dataclass
class NoteOutcome:
    path: str
    status: str  # "written" | "unchanged" | "deleted" | "renamed" | "missing"
    chunks: int = 0
    embedded: int = 0
    extracted: int = 0
    facts: Counter[str] = field(default_factory=Counter)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    models_down: bool = False


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
        self._models_down_until = 0.0
        self.embed_enabled = embed_enabled
        # A sync links new entities once at its end rather than after every note.
        self.defer_entity_links = False

    # -- public calls ----------------------------------------------------------------------

    async def upsert_path(self, path: str) -> NoteOutcome:
        if self.root is None:
            raise KnotworkError("no vault folder: set KNOTWORK_VAULT_PATH")
        rel = clean_relpath(path)
        text = read_note(self.root, rel, self.settings.max_note_bytes)
        outcome = await self.upsert_text(rel, text.text, text.mtime)
        outcome.warnings[:0] = text.warnings
        return outcome

    async def upsert_text(
        self, path: str, text: str, mtime: float | None = None, renamed_from: str | None = None
    ) -> NoteOutcome:
        """Write one note from its text; nothing is written when its content is unchanged."""
        path = clean_relpath(path)
        note = parse_note(path, text)
        state = await self._state(path)
        old = await self._state(renamed_from) if renamed_from else state
        if (
            renamed_from is None
            and state["content_hash"] == note.content_hash
            and state["facts_version"] == FACTS_VERSION
        ):
            return NoteOutcome(path, "unchanged")
        outcome = NoteOutcome(path, "renamed" if renamed_from else "written")
        if note.frontmatter_error:
            outcome.warnings.append(f"{path}: frontmatter ignored: {note.frontmatter_error}")
        chunks = chunk_note(note, self.vault, self.settings.chunk_size)
        rows = await self._chunk_rows(chunks, state["chunks"] + old["chunks"], outcome)
        facts, dropped = split_oversized(structural_facts(note, chunks))
        outcome.warnings += [
            f"{path}:{f.line}: {f.relation} target longer than {MAX_KEY_CHARS} characters ignored"
            for f in dropped
        ]
        chunk_entities: list[dict[str, Any]] = []
        for chunk, row in zip(chunks, rows, strict=True):
            if row["extraction"]:
                parsed = extract.Extraction.model_validate_json(row["extraction"])
                facts += extract.llm_facts(
                    parsed, chunk.id, chunk.line_start, self.settings.llm_model
                )
                chunk_entities += self._entity_rows(chunk.id, parsed)
        links, entities = fact_rows(facts, path)
        result = await write.write_note(
            self.core.store,
            write.NoteWrite(
                vault=self.vault,
                path=path,
                props=note_props(note, mtime),
                chunks=rows,
                link_facts=links,
                entity_facts=entities,
                chunk_entities=chunk_entities,
                asserted=[canonical(f) for f in facts],
                old_hash=old["content_hash"],
                is_new=state["content_hash"] is None,
                renamed_from=renamed_from,
                mention_grams=mentions.gram_rows(rows) if self.settings.mentions else None,
            ),
        )
        outcome.chunks, outcome.added, outcome.removed = len(chunks), result.added, result.removed
        outcome.facts = Counter(f.extractor for f in facts)
        if result.mentions:
            outcome.facts["mention"] = result.mentions
        if not outcome.models_down:  # else extraction waits for `knotwork retry` too
            pending = [
                c for c, r in zip(chunks, rows, strict=True) if r["extraction_state"] == "pending"
            ]
            outcome.extracted = await self._extract(pending, path, outcome)
        if not self.defer_entity_links:
            await self.link_entities()
        return outcome

    async def rename(self, old_path: str, new_path: str, text: str | None = None) -> NoteOutcome:
        """Move a note: same content keeps its chunks, embeddings and extractions."""
        old_path, new_path = clean_relpath(old_path), clean_relpath(new_path)
        if text is None:
            if self.root is None:
                raise KnotworkError("no vault folder: set KNOTWORK_VAULT_PATH")
            text = read_note(self.root, new_path, self.settings.max_note_bytes).text
        if (await self._state(old_path))["content_hash"] is None:
            return await self.upsert_text(new_path, text)
        return await self.upsert_text(new_path, text, renamed_from=old_path)

    async def delete(self, path: str) -> NoteOutcome:
        path = clean_relpath(path)
        state = await self._state(path)
        if state["content_hash"] is None:
            return NoteOutcome(path, "missing")
        result = await write.delete_note(
            self.core.store, self.vault, path, state["content_hash"], self.settings.mentions
        )
        return NoteOutcome(path, "deleted", removed=result.removed)

    async def retry_pending(self, limit: int = 10_000) -> tuple[int, int]:
        """Embed and extract chunks left pending while Ollama was down: (embedded, extracted)."""
        self._models_down_until = 0.0  # an explicit retry asks the models again
        rows = await self.core.store.read("chunks_pending", vault=self.vault, limit=limit)
        embedded = extracted = 0
        need = [r for r in rows if r["embedding_state"] == "pending"]
        if need:
            vectors = await self._embed([embed_text(r["heading_path"], r["text"]) for r in need])
            if vectors is not None:
                embedded = await self.core.store.set_chunk_embeddings(
                    [(r["id"], r["hash"], v) for r, v in zip(need, vectors, strict=True)]
                )
        if self.extract_enabled:
            outcome = NoteOutcome("", "written")
            for row in rows:
                if row["extraction_state"] != "pending":
                    continue
                chunk = Chunk(
                    id=row["id"],
                    ord=0,
                    heading_path=row["heading_path"],
                    line_start=row["line_start"],
                    line_end=row["line_start"],
                    text=row["text"],
                    hash=row["hash"],
                )
                extracted += await self._extract([chunk], row["note_path"], outcome)
        await self.link_entities()
        return embedded, extracted

    async def link_entities(self) -> int:
        """Embed new entities' names and link similar ones; see ``similar.link_new_entities``."""
        if not self.embed_enabled:
            return 0
        return await similar.link_new_entities(
            self.core.store, self.settings, self.vault, self._embed
        )

    # -- steps -----------------------------------------------------------------------------

    async def _state(self, path: str) -> dict[str, Any]:
        rows = await self.core.store.read("note_state", vault=self.vault, path=path)
        return rows[0] if rows else {"content_hash": None, "facts_version": None, "chunks": []}

    async def _embed(self, texts: list[str]) -> list[list[float]] | None:
        """Vectors for texts, or None when the embedding model cannot answer.

        After a failure the model is not asked again for ``MODEL_BACKOFF_S``: a sync over a
        large vault with Ollama down must not wait for a timeout on every note.
        """
        if not self.embed_enabled or time.monotonic() < self._models_down_until:
            return None
        for attempt in (1, 2):  # one retry: a model being loaded may time out once
            try:
                vectors = await self.core.embedder.aget_text_embedding_batch(texts)
                break
            except Exception as exc:  # any client failure means "embed later"
                if attempt == 1:
                    await asyncio.sleep(1.0)
                    continue
                log.warning("embedding failed, chunks left pending: %s", exc)
                self._models_down_until = time.monotonic() + MODEL_BACKOFF_S
                return None
        dim = self.settings.embed_dimension
        if any(len(v) != dim for v in vectors):
            log.warning("embedding model returned vectors not of size %d; chunks pending", dim)
            return None
        return [list(v) for v in vectors]

    async def _chunk_rows(
        self, chunks: list[Chunk], old: list[dict[str, Any]], outcome: NoteOutcome
    ) -> list[dict[str, Any]]:
        """Chunk rows for the writer: reuse by hash, embed only what is new."""
        by_hash = {c["hash"]: c for c in old if c.get("has_embedding")}
        by_hash_any = {c["hash"]: c for c in old}
        fresh = [c for c in chunks if c.hash not in by_hash]
        vectors = (
            await self._embed([embed_text(c.heading_path, c.text) for c in fresh]) if fresh else []
        )
        if fresh and vectors is None and self.embed_enabled:
            outcome.models_down = True
            outcome.warnings.append(
                f"{outcome.path}: embedding model unavailable; "
                f"{len(fresh)} chunks wait for `knotwork retry`"
            )
        new_vectors = dict(zip([c.id for c in fresh], vectors or [], strict=False))
        outcome.embedded = len(new_vectors)
        rows = []
        for c in chunks:
            prior = by_hash.get(c.hash) or by_hash_any.get(c.hash)
            reuse = prior if prior and prior.get("extraction_model") == self.model_tag else None
            state = (
                reuse["extraction_state"] if reuse else "pending" if self.extract_enabled else "off"
            )
            rows.append(
                {
                    "id": c.id,
                    "ord": c.ord,
                    "heading_path": c.heading_path,
                    "line_start": c.line_start,
                    "line_end": c.line_end,
                    "line_map": list(c.line_map),
                    "text": c.text,
                    "mtext": mentions.chunk_mtext(c.text),
                    "hash": c.hash,
                    "embedding": new_vectors.get(c.id),
                    "copy_from": prior["id"] if prior and prior.get("has_embedding") else None,
                    "extraction": reuse["extraction"] if reuse and state == "done" else None,
                    "extraction_model": reuse["extraction_model"] if reuse else None,
                    "extraction_state": state,
                    "extraction_error": reuse["extraction_error"] if reuse else None,
                }
            )
        return rows

    def _entity_rows(self, chunk_id: str, parsed: extract.Extraction) -> list[dict[str, Any]]:
        return [
            {"chunk_id": chunk_id, "key": entity_key(name), "name": name}
            for name in extract.entity_names(parsed)
        ]

    async def _extract(self, chunks: list[Chunk], path: str, outcome: NoteOutcome) -> int:
        """Ask the model about each chunk and record the result; the count of successes."""
        if not self.extract_enabled:
            return 0
        done = 0
        for chunk in chunks:
            if time.monotonic() < self._models_down_until:
                outcome.warnings.append(f"{path}: extraction postponed: model unavailable")
                break
            result = await extract.extract_chunk(self.core.llm, chunk.heading_path, chunk.text)
            if result.extraction is None and (result.error or "").startswith("model call failed"):
                outcome.warnings.append(f"{path}: extraction postponed: {result.error}")
                self._models_down_until = time.monotonic() + MODEL_BACKOFF_S
                continue  # stays pending; `knotwork retry` asks again
            facts: list[Fact] = []
            entity_rows: list[dict[str, Any]] = []
            if result.extraction is not None:
                facts = extract.llm_facts(
                    result.extraction, chunk.id, chunk.line_start, self.settings.llm_model
                )
                entity_rows = self._entity_rows(chunk.id, result.extraction)
            else:
                outcome.warnings.append(f"{path}: extraction failed for a chunk: {result.error}")
            _, entities = fact_rows(facts, path)
            written = await write.write_extraction(
                self.core.store,
                self.vault,
                {
                    "id": chunk.id,
                    "hash": chunk.hash,
                    "extraction": result.extraction.model_dump_json()
                    if result.extraction
                    else None,
                    "extraction_model": self.model_tag,
                    "extraction_state": "done" if result.extraction else "error",
                    "extraction_error": result.error,
                },
                entities,
                entity_rows,
            )
            done += int(written and result.extraction is not None)
            outcome.facts.update(f.extractor for f in facts)
        return done
