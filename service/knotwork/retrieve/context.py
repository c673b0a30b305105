"""One question's retrieval under way: the steps its retrievers share, each started once as a
task (the model's keywords, the question's embedding, the vault's view, the notes it names,
the seed rankings), and the ``Retriever`` protocol every retrieval strategy follows.

Every step starts at once and awaits only its inputs, so a retriever awaits only the steps it
``needs``: vector and names on the embedding, full text on the view, the graph walk on the
named notes (or on the seed rankings when no note is named), the synonym walk on the keywords.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol, TypeVar, runtime_checkable

from knotwork.core import Core
from knotwork.errors import ConfigError, GraphQueryError, QueryTimeoutError
from knotwork.llm.bounded import bounded, failed
from knotwork.llm.vectors import vectors_problem
from knotwork.redact import described
from knotwork.retrieve import cached, relevance, search
from knotwork.retrieve import keywords as kw
from knotwork.retrieve.config import RetrievalConfig
from knotwork.retrieve.steps import Clock, Steps
from knotwork.retrieve.types import HopPath, Mode
from knotwork.retrieve.undated import undated
from knotwork.retrieve.walk import Walk

log = logging.getLogger(__name__)
T = TypeVar("T")

Rankings = dict[str, list[tuple[str, float]]]
# What a retriever may await of the context (its ``needs``); the context starts the model
# calls and the reads only when a retriever of the configuration needs them.
NEEDS = frozenset({"keywords", "embedding", "view", "named", "seeds"})


@dataclass(frozen=True)
class Ranking:
    """One retriever's chunks, best first with its own score; a walk adds where it went (for
    PageRank) and how it reached each chunk (the hop paths shown with the evidence)."""

    chunks: list[tuple[str, float]]
    walk: Walk | None = None
    paths: dict[str, HopPath] = field(default_factory=dict)


@runtime_checkable
class Retriever(Protocol):
    """A retrieval strategy: ``name`` is its ranking's name in the fusion and in each hit's
    retrievers; ``needs`` what of the context it awaits (``NEEDS``); a ``seed`` search's
    ranking can seed the graph walk, a walk's cannot. ``rank`` returns None when it has
    nothing to say for the question (no date named, no embedding)."""

    @property
    def name(self) -> str: ...

    @property
    def needs(self) -> frozenset[str]: ...

    @property
    def seed(self) -> bool: ...

    async def rank(self, ctx: Context) -> Ranking | None: ...


class Context:
    """The per-question state the retrievers share. Made, it has started the shared steps the
    retrievers need, then the retrievers, then the seed rankings (awaited by the graph walk
    and the fusion alike, so computed once); ``steps.stop()`` cancels what still runs (the
    caller's ``finally``)."""

    def __init__(
        self,
        core: Core,
        vault: str,
        question: str,
        k: int,
        *,
        mode: Mode,
        extractors: list[str] | None,
        config: RetrievalConfig,
        retrievers: Sequence[Retriever],
        narrow: search.Narrow | None = None,
    ) -> None:
        self.core, self.vault, self.question, self.k = core, vault, question, k
        self.mode, self.extractors, self.config = mode, extractors, config
        # The note filters (folder, tags, dates) when one is set: the index searches keep only
        # chunks of notes that pass, searching deeper for them (search.Narrow).
        self.narrow = narrow
        self.clock, self.warnings, self.steps = Clock(), list[str](), Steps()
        self.ranked: dict[str, asyncio.Task[Ranking | None]] = {}
        self.dense_down = False  # the question's embedding failed
        try:
            self._start(retrievers)
        except BaseException:
            self.steps.stop()  # nothing started is left running
            raise

    def _start(self, retrievers: Sequence[Retriever]) -> None:
        core = self.core
        store, settings = core.store, core.settings
        needs = frozenset().union(*(r.needs for r in retrievers))
        self.keywords = (
            self.steps.start(self.clock.timed("keywords", self._keywords()))
            if self.mode == "normal" and "keywords" in needs
            else None
        )
        # The vault's size and languages, kept under its generation (cached.py); the gate's
        # floor and probes' mean, kept a while (relevance.py). Neither depends on the question.
        self.view = (
            self.steps.start(cached.vault_view(store, self.vault, core.memo, core.vault_sizes))
            if needs & {"view", "named"}
            else None
        )
        self.floor = self.steps.start(
            relevance.scale(store, self.vault, settings.embed_model, core.relevance_floors)
        )
        self.embedding = self.steps.start(self.clock.timed("embed", self._embed(needs)))
        self.named = self.steps.start(self._named()) if "named" in needs else None
        for retriever in retrievers:
            self.ranked[retriever.name] = self.steps.start(self._rank(retriever))
        seeds = [r.name for r in retrievers if r.seed]
        self.named_first = self.steps.start(self._named_first())
        self.seeds = self.steps.start(self._seed_rankings(seeds))

    async def vault_view(self) -> cached.VaultView:
        assert self.view is not None, "a retriever awaited the view without needing it"
        return await self.view

    async def named_notes(self) -> list[search.NamedNote]:
        """The notes the question names, most specific first (generic names dropped)."""
        return await self.named if self.named is not None else []

    async def ranking(self, name: str) -> list[tuple[str, float]] | None:
        """Another retriever's chunks, or None when it does not run or found nothing."""
        started = self.ranked.get(name)
        found = await started if started is not None else None
        return found.chunks if found is not None else None

    def generic(self, view: cached.VaultView) -> int:
        """Mentions of a note that more notes than this write out are not walked: such a name
        ("api", "models") says little about what a passage is about (measured against the
        vault's size)."""
        return search.max_mentioned_by(view.notes, self.config.min_specificity)

    async def _keywords(self) -> tuple[list[str], str | None]:
        # The chat client is built off the event loop (it imports LlamaIndex on first use); one
        # that cannot be built costs the keywords, as a model down does, unless a setting is wrong.
        try:
            llm = await self.core.load_llm()
        except ConfigError:
            raise
        except Exception as exc:
            return [], f"keywords skipped: the chat model could not be loaded: {described(exc)}"
        return await kw.propose(llm, self.question)

    async def _embed(self, needs: frozenset[str]) -> list[float] | None:
        if "embedding" not in needs:
            return None
        embedder = None
        try:
            # Built on first use: a ConfigError building it is a setting to fix, not a model
            # down, and is raised; a model that could not be loaded is one down.
            embedder = await self.core.load_embedder()
            # Without the periods it names: the temporal side answers when (undated.py).
            query = embedder.aget_query_embedding(undated(self.question))
            vector = list(await bounded(embedder, query))  # a server dripping bytes too
        except ConfigError:
            raise
        except Exception as exc:  # the embedding model may be down: the rest still answers
            why = described(exc) if embedder is None else failed("embedding", embedder, exc)
            self.warnings.append(f"vector retrieval skipped: {why}")
            self.dense_down = True
            return None
        # A garbage answer (a zero vector, NaN, another size) is a model down for this
        # question: Neo4j's vector search and cosine refuse it, and would fail each search.
        if problem := vectors_problem([vector], 1, self.core.settings.embed_dimension):
            self.warnings.append(f"vector retrieval skipped: the embedding model {problem}")
            self.dense_down = True
            return None
        return vector

    async def _named(self) -> list[search.NamedNote]:
        qvec = await self.embedding  # the vault's size is awaited once the query is back
        notes = self.steps.start(cached.notes(self.vault_view()))
        named = search.named_notes(self.core.store, self.vault, self.question, notes, qvec)
        found = await self._or_skipped("names", self.clock.timed("names", named))
        if found is None:
            return []
        least = self.config.min_specificity
        return sorted((n for n in found if n.specificity >= least), key=lambda n: -n.specificity)

    async def _named_first(self) -> list[search.NamedNote]:
        """Each named note's opening (its first chunk), then its chunks that full-text search
        found, best first, then the rest (nearest the question): ``named_chunks`` of them, or
        up to ``named_found`` found ones.

        Which part of a named note a question asks about is told by its words beyond the name:
        every chunk of the note embeds the note's title, so their cosines differ little, while
        full text scores the rarer words the question adds ("edge-triggered" in a flip-flop
        note). The opening comes first whatever full text says: it says what the note is, and
        the name's own words, written again in the headings of the sections that repeat it
        ("decodificatore standard" in decodificatore.md), would rank those sections above it
        for a question that asks what the named thing is or how two named things differ."""
        named = await self.named_notes()
        if not named:
            return []
        text = {c: -i for i, (c, _) in enumerate(await self.ranking("fulltext") or [])}
        config, out = self.config, []
        for note in named:
            found = sorted((c for c in note.chunk_ids if c in text), key=lambda c: -text[c])
            rest = [c for c in note.chunk_ids if c not in text]
            keep = max(config.named_chunks, min(len(found), config.named_found))
            order = found + rest
            if note.lead is not None:  # the note's opening first, found or not
                order = [note.lead] + [c for c in order if c != note.lead]
            out.append(replace(note, chunk_ids=tuple(order[:keep])))
        return out

    async def _rank(self, retriever: Retriever) -> Ranking | None:
        return await self._or_skipped(retriever.name, retriever.rank(self))

    async def _or_skipped(self, name: str, work: Awaitable[T]) -> T | None:
        """A search's result; a query of it that Neo4j refuses or stops for its time (not
        Neo4j away: that fails the question, 503) costs that search, with a warning, not the
        question."""
        try:
            return await work
        except GraphQueryError as exc:  # a transient one fails the question (503), as Neo4j away
            log.warning("%s retrieval failed: %s", name, exc)
            self.warnings.append(f"{name} retrieval skipped: {exc.code}")
            return None
        except QueryTimeoutError as exc:
            log.warning("%s retrieval stopped: %s", name, exc)
            self.warnings.append(
                f"{name} retrieval skipped: it ran past KNOTWORK_NEO4J_QUERY_TIMEOUT_S"
            )
            return None

    async def _seed_rankings(self, seeds: list[str]) -> Rankings:
        """The seed searches' rankings, in the fusion's order."""
        rankings: Rankings = {}
        for name in seeds:
            if (found := await self.ranking(name)) is not None:
                rankings[name] = found
        return rankings
