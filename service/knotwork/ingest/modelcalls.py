"""The model side of ingest: embeddings with a back-off, extraction per chunk, similarity links
between new entities; the retry of work left pending while the models were down is in
ingest/retry.py (``retry.retry_all(models)``).

A model that fails is not asked again for ``MODEL_BACKOFF_S`` by any writer of the vault in this
process (``Core.chat_down_until``, ``EmbedTrouble.down_until``): a sync over a large vault with
Ollama down must not wait for a time-out on every batch, nor a server's next write for one more.
Each model has its own back-off: the chat model failing leaves the embeddings going (and the
reverse). The embedding model down is said once while it stays down (every embed call comes
here, a write's and each period's pass alike), and once when it answers again; so is a model
answering vectors that cannot be stored, which is asked again at once, with no back-off (a zero
vector may be one text's: the texts it is for are found apart, llm/vectors.py, and the others
keep theirs): both are the vault's trouble for the whole process (llm/embed_trouble.py), each
naming what waits so far (ingest/waiting.py), a sync that met it the total at its end. Whatever
is not embedded or extracted stays ``pending`` on its chunk for ``retry_pending``; a chunk whose
request the model refuses itself (a prompt too long for its context) is recorded as an error at
once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from knotwork.core import Core
from knotwork.errors import KnotworkError, ModelUnavailableError
from knotwork.ingest import similar, waiting
from knotwork.ingest.extract_chunks import (
    MAX_EXTRACTION_TRIES,
    POSTPONED,
    Extracted,
    extract_chunks,
)
from knotwork.llm.embed_trouble import EmbedTrouble
from knotwork.llm.vectors import (
    Vectors,
    VectorsRejectedError,
    embed_apart,
    embed_batch,
    rejected_fix,
)
from knotwork.models import Chunk, now_ms
from knotwork.plural import counted, plural

log = logging.getLogger(__name__)
MODEL_BACKOFF_S = 30.0
EMBED_SLICE_BATCHES = 4  # embedding batches asked at once
# Why a note's chunks were left unembedded (its outcome's warning).
EMBED_DOWN = "embedding model unavailable"
EMBED_REJECTED = "embedding model answered vectors that cannot be stored"
__all__ = [
    "MAX_EXTRACTION_TRIES",
    "POSTPONED",
    "EmbedProgress",
    "Extracted",
    "ModelCalls",
]
# Told (texts embedded, of how many, the note whose chunks are embedded next) as an embedding
# call starts and after each slice: a sync's progress, which a note of 1,500 sections would
# otherwise hold still for the model's whole time on it.
EmbedProgress = Callable[[int, int, str], None]


@dataclass
class ModelCalls:
    """One vault's model calls through the shared core's clients."""

    core: Core
    vault: str
    extract_enabled: bool
    embed_enabled: bool
    model_tag: str  # the chat model and extractor version an extraction is recorded under
    embed_failed: str = EMBED_DOWN  # why the last call that gave no vectors did not
    # Whether the chat model was last let be for answering garbage (not for being away).
    chat_garbage: bool = False
    # Awaited before each extraction is written, raising to leave it unwritten: the watcher's
    # lease confirmed (an answer may come after another writer took it, before the heartbeat).
    before_write: Callable[[], Awaitable[None]] | None = None

    @property
    def trouble(self) -> EmbedTrouble:
        """The embedding model's trouble with this vault, the process's, made at first use."""
        if (trouble := self.core.embed_trouble.get(self.vault)) is None:
            trouble = self.core.embed_trouble[self.vault] = EmbedTrouble()
        return trouble

    @property
    def chat_down(self) -> bool:
        return time.monotonic() < self.core.chat_down_until.get(self.vault, 0.0)

    @property
    def embed_down(self) -> bool:
        return time.monotonic() < self.trouble.down_until

    @property
    def down(self) -> bool:  # either model let be
        return self.chat_down or self.embed_down

    def ask_again(self) -> None:
        """Both models' back-offs over, for every writer of the vault: an explicit retry."""
        self.trouble.down_until = 0.0
        self.core.chat_down_until.pop(self.vault, None)

    @property
    def embed_slice(self) -> int:
        """Texts asked of the embedding model at once: ``EMBED_SLICE_BATCHES`` batches."""
        return self.core.settings.embed_batch_size * EMBED_SLICE_BATCHES

    async def embed(
        self,
        texts: list[str],
        chunks: Mapping[str, str] | None = None,
        progress: EmbedProgress | None = None,
    ) -> Vectors | None:
        """Vectors for texts, None when the embedding model cannot answer or answers garbage
        for every text (even ``PROBE_TEXT``, asked once a slice of several is refused); else
        None in place of each text's it answers garbage for (found apart, llm/vectors.py).
        ``EMBED_SLICE_BATCHES`` batches at a time: a CPU model times out on the last of a
        large note's sent at once. ``chunks``: the texts' chunks (id → note path, in order),
        counted among what waits when the model fails (None: entity names). ``progress``:
        told as the model is first asked and after each slice."""
        if not self.embed_enabled or self.embed_down:
            return None
        try:  # built on first use: a ConfigError is a setting to fix, raised; not a model down
            embedder = await self.core.load_embedder()
        except ModelUnavailableError as exc:
            await self._down(f"not loaded: {exc}", chunks)
            return None
        size, dimension = self.embed_slice, self.core.settings.embed_dimension
        vectors: Vectors = []
        refused: VectorsRejectedError | None = None  # garbage for some texts
        owners = list((chunks or {}).values())
        for first in range(0, len(texts), size):
            if progress is not None:  # the note of the slice's first text: the one under way
                progress(first, len(texts), owners[min(first, len(owners) - 1)] if owners else "")
            part = texts[first : first + size]
            try:
                try:
                    got: Vectors = list(await embed_batch(embedder, part, dimension))
                except VectorsRejectedError as exc:  # garbage: the texts it is for found apart
                    self.embed_failed, refused = EMBED_REJECTED, exc
                    self.trouble.refusals += 1  # at once: a pass reading meanwhile ends nothing
                    got = await embed_apart(embedder, part, dimension, exc)
            except VectorsRejectedError as exc:  # for every text: asked again by a retry
                await self._refused(exc, chunks)
                return None
            except KnotworkError as exc:  # the model down (embed_batch says which): later
                await self._down(f"embedding failed: {exc}", chunks)
                return None
            # Back: any answer. Refused vectors are over only once none waits (``settled``).
            self.trouble.down.ended(": chunks are embedded again")
            vectors += got
        if refused is not None and None in vectors:
            await self._refused(refused, chunks, vectors)
        if progress is not None and texts:
            progress(len(texts), len(texts), owners[-1] if owners else "")
        return vectors

    async def _refused(
        self, exc: VectorsRejectedError, held: Mapping[str, str] | None, got: Vectors | None = None
    ) -> None:
        """Vectors that cannot be stored for the chunks ``held``, said once while the trouble
        lasts; ``got``: the call's, when some texts' alone were refused (the others' stored)."""
        done, some = set[str](), ""
        if got:  # some texts' alone: only the refused chunks wait
            others = " (the others embedded)" if got.count(None) < len(got) else ""
            some = f", for {got.count(None)} of {counted(len(got), 'text')}{others}"
            if held is not None:
                done = {c for c, v in zip(held, got, strict=True) if v is not None}
                held = {c: p for c, p in held.items() if c not in done}
        refused = self.trouble.refused
        waits = await waiting.embedding(self.core.store, self.vault, refused, held, done)
        refused.failed(f"{self.core.settings.embed_model} {exc}{some}", waits, rejected_fix(exc))

    async def _down(self, why: str, chunks: Mapping[str, str] | None) -> None:
        """The embedding model out of reach: let be for a while, said once while it stays."""
        self.embed_failed = EMBED_DOWN
        self.trouble.down_until = time.monotonic() + MODEL_BACKOFF_S
        down = self.trouble.down
        down.failed(why, await waiting.embedding(self.core.store, self.vault, down, chunks))

    async def said_after(self, began: float) -> None:
        """The end of a sync begun at ``began`` (monotonic): an embedding trouble that began
        during it and stands counted only what waited then, so the total is said (the warning
        was the trouble's)."""
        if (outage := self.trouble.begun(began)) is None:
            return
        if (found := await self.waiting_for("embedding")) is not None and found.chunks:
            log.info(
                "%s %s: after the sync, %s %s for an embedding, out of vector search",
                outage.what,
                outage.trouble,
                found,
                plural(found.chunks, "waits", "wait"),
            )

    async def waiting_for(
        self, step: waiting.Step, held: Mapping[str, str] | None = None
    ) -> waiting.Waiting | None:
        """The notes whose chunks wait for ``step`` in this vault, None when Neo4j could not
        say (ingest/waiting.py)."""
        return await waiting.read(self.core.store, self.vault, step, held)

    async def extract(
        self, chunks: list[Chunk], path: str, tick: Callable[[], None] | None = None
    ) -> Extracted:
        """Ask the model about each chunk of note ``path`` and record each result; ``tick``
        is called as each chunk's model call returns (ingest/extract_chunks.py)."""
        return await extract_chunks(self, chunks, path, tick)

    def let_chat_be(self, garbage: bool = False) -> None:
        """The chat model not asked for ``MODEL_BACKOFF_S`` by any writer of the vault;
        ``garbage``: for answering garbage to every request, which the summary says."""
        self.core.chat_down_until[self.vault] = time.monotonic() + MODEL_BACKOFF_S
        self.chat_garbage = garbage

    async def link_entities(self, asked_before: int | None = None) -> int:
        """Embed new entities' names and link similar ones; see ``similar.link_new_entities``.
        A name refused at or after ``asked_before`` (ms since the epoch; by default, within the
        model's back-off) waits. ManifestMismatchError when the graph was re-embedded with
        another model meanwhile."""
        if not self.embed_enabled:  # values' edges go all the same: that needs no model
            await similar.unlink_values(self.core.store, self.vault)
            return 0
        await self.core.check_manifest()
        if asked_before is None:
            asked_before = now_ms() - int(MODEL_BACKOFF_S * 1000)
        return await similar.link_new_entities(
            self.core.store, self.core.settings, self.vault, self.embed, asked_before
        )
