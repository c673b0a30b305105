"""The seed retrievers, each one named Cypher query: vector, full-text (chunks and entity
names), notes the question names (retrieve/named.py), and dates. Each returns chunk ids best
first with its score. The named notes' functions and ``lucene_query`` are named here too: the
retrievers call every search through this module."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from datetime import date
from typing import Any, TypeVar

from knotwork.graph.queries import Query
from knotwork.graph.queries.reads import (
    CHUNKS_CITED,
    FILTER_CHUNKS,
    FILTER_COUNT,
    SEARCH_FULLTEXT,
    SEARCH_TEMPORAL,
    SEARCH_VECTOR,
    SEARCH_VECTOR_NOTES,
    CitedChunk,
    HitsRow,
    IndexPageRow,
    NoteScoredId,
    ScoredId,
    VectorNotesRow,
)
from knotwork.graph.store import GraphStore
from knotwork.retrieve.lucene import cjk_query, lucene_query, pairs_query
from knotwork.retrieve.named import (
    SIZE_TTL_S,
    NamedNote,
    beyond_names,
    in_turns,
    max_mentioned_by,
    named_notes,
    named_share,
    specificity,
    vault_notes,
)
from knotwork.retrieve.temporal import question_range, time_words
from knotwork.retrieve.types import FactRow
from knotwork.text.language import LANGUAGES

__all__ = [
    "FULLTEXT",
    "MAX_CANDIDATES",
    "SIZE_TTL_S",
    "NamedNote",
    "Narrow",
    "beyond_names",
    "cited",
    "fulltext",
    "in_turns",
    "lucene_query",
    "max_mentioned_by",
    "merged",
    "named_notes",
    "named_share",
    "placed",
    "specificity",
    "temporal",
    "vault_notes",
    "vector",
    "vector_notes",
]

MAX_CANDIDATES = 20_000  # the most an index is asked for while looking for a vault's own
FULLTEXT = [f"chunk_text_{lang}" for lang in LANGUAGES]  # one per language (schema.cypher)
CJK_INDEX = "chunk_text_cjk"
PAIRS_INDEX = "chunk_pairs"  # Lao, Khmer and Myanmar runs paired, any language's chunks
_Page = TypeVar("_Page", HitsRow, VectorNotesRow, IndexPageRow)  # an index's page, any vault
_Hit = TypeVar("_Hit", ScoredId, NoteScoredId)


class Narrow:
    """A question's note filters (folder, tags, date_from, date_to) as its index searches use
    them: a hit is the vault's own only when its note passes (cypher/filter_chunks.cypher),
    and how many of the vault's chunks pass is counted once, when a search first needs it,
    for every search of the question."""

    def __init__(self, store: GraphStore, vault: str, filters: dict[str, object]) -> None:
        self.store, self.vault, self.filters = store, vault, filters
        self._passing: int | None = None
        self._counting = asyncio.Lock()  # the searches run at once: one count between them

    async def kept(self, hits: list[_Hit]) -> list[_Hit]:
        """``hits`` whose note passes, in their order."""
        if not hits:
            return hits
        kept = await placed(self.store, self.vault, [h["id"] for h in hits], self.filters)
        return [h for h in hits if h["id"] in kept]

    async def passing(self) -> int:
        """How many of the vault's chunks pass (counted once for the question's searches)."""
        async with self._counting:
            if self._passing is None:
                [row] = await self.store.read(FILTER_COUNT, vault=self.vault, **self.filters)
                self._passing = int(row["chunks"])
            return self._passing

    async def all_found(self, found: int) -> bool:
        """Whether ``found`` hits are every chunk that passes: then no search asks deeper."""
        return found >= await self.passing()


async def _deepened(
    ask: Callable[[dict[str, int]], Awaitable[list[tuple[str, _Page]]]],
    indexes: list[str],
    k: int,
    narrow: Narrow | None,
) -> dict[str, tuple[list[Any], _Page]]:
    """Each index's page (the vault's own hits, and its row) from indexes shared by every
    vault: ``ask`` (index → how many candidates) reads a page of each, and an index whose
    page came back full yet held fewer than ``k`` of the vault's own is asked again with four
    times the candidates, up to ``MAX_CANDIDATES``, so another vault in the database never
    crowds this one out. With ``narrow``, the vault's own are only the chunks of notes that
    pass, and no index is asked again once every passing chunk is found: a filter matching a
    few notes of a large vault is searched as deep as they need, no deeper."""
    limits, pages = dict.fromkeys(indexes, k * 4), dict[str, tuple[list[Any], _Page]]()
    while limits:
        found = len({h["id"] for hits, _ in pages.values() for h in hits})  # a chunk on two: once
        if pages and narrow is not None and await narrow.all_found(found):
            break
        asked, limits = limits, {}
        for index, row in await ask(asked):
            hits = row["hits"] if narrow is None else await narrow.kept(row["hits"])
            pages[index] = (hits, row)
            limit = asked[index]
            if len(hits) < k and row["returned"] >= limit and limit < MAX_CANDIDATES:
                limits[index] = limit * 4
    return pages


async def _own(
    store: GraphStore, query: Query[_Page], k: int, narrow: Narrow | None, /, **params: object
) -> tuple[list[Any], _Page]:
    """The vault's best ``k`` hits from one index (see ``_deepened``), with its last row."""

    async def ask(limits: dict[str, int]) -> list[tuple[str, _Page]]:
        [row] = await store.read(query, k=limits[query.name], **params)
        return [(query.name, row)]

    hits, row = (await _deepened(ask, [query.name], k, narrow))[query.name]
    return hits[:k], row


async def vector(
    store: GraphStore,
    vault: str,
    embedding: list[float],
    k: int,
    narrow: Narrow | None = None,
) -> list[tuple[str, float]]:
    """Nearest chunks (of notes passing ``narrow``, see ``_own``); the score is the index's,
    (1 + cosine) / 2."""
    hits, _ = await _own(store, SEARCH_VECTOR, k, narrow, vault=vault, embedding=embedding)
    return [(h["id"], h["score"]) for h in hits]


async def vector_notes(
    store: GraphStore,
    vault: str,
    embedding: list[float],
    k: int,
    notes: int,
    narrow: Narrow | None = None,
) -> tuple[list[tuple[str, float, float | None]], float | None]:
    """The vault's ``k`` chunks nearest the embedding (of notes passing ``narrow``), best
    first, each as (chunk id, its own score, its note's score when the note is among the
    vault's ``notes`` nearest by note vector, else None), and the lowest of those notes'
    scores (None: no note has a vector)."""
    hits, row = await _own(
        store, SEARCH_VECTOR_NOTES, k, narrow, vault=vault, embedding=embedding, notes=notes
    )
    return [(h["id"], h["score"], h["note"]) for h in hits], row["floor"]


async def fulltext(
    store: GraphStore,
    vault: str,
    question: str,
    k: int,
    languages: Sequence[str] | None = None,
    narrow: Narrow | None = None,
) -> list[tuple[str, float]]:
    """BM25 over the full-text index of each of ``languages`` (the vault's, as
    cached.vault_view reads them, the most notes' language first; None: all eight), of the
    chunks whose note passes ``narrow`` (see ``_own``), each hit scoring its BM25 score's
    share of its own index's best for the vault, best first (a tie, such as two indexes' best
    hits, goes to the earlier language). Each index is asked again, with four times the
    candidates, while its page came back full yet held fewer than ``k`` of the vault's own:
    another vault crowding one language's index never hides this vault's chunks in it.

    BM25 scores of two indexes are not on one scale: each index has its own analyzer and its
    own term statistics, taken over every vault's chunks in that language. A vault's few
    chunks in a second language (an Italian vault's formula notes detected as English) scored
    low when the vault was alone in the database and high beside an English vault, where the
    Italian words they hold are rare; shared by its index's best, a hit's score is read
    against what that index found for this question, and the order of two indexes' hits is
    the vault's own (bench/RESULTS.md, "Full text by its share of each index's best, spaced in
    the fusion"). The words of a relative time ("last week", "this winter") are not searched:
    a note dated then answers them by its date (``temporal``), and one that merely writes
    "week" ("three runs per week") answers nothing of them. A question holding Lao, Khmer or
    Myanmar is searched in ``chunk_pairs`` too, by the pairs of its runs, which no language's
    analyzer splits (text/pairs.py)."""
    drop = time_words(question)
    words = lucene_query(question, drop=drop)
    by_language = dict(zip(LANGUAGES, FULLTEXT, strict=True))
    indexes = (
        FULLTEXT
        if languages is None
        else [by_language[lang] for lang in languages if lang in by_language]
    )
    if not words or not indexes:
        return []
    # The `cjk` analyzer pairs the characters of a Han, kana or Hangul run, which the others
    # split one by one (Han, hiragana) or keep whole (katakana, Hangul): its query keeps such
    # runs whole.
    queries = {
        index: cjk_query(question, drop) if index == CJK_INDEX else words for index in indexes
    }
    # A graph last opened by a version before chunk_pairs lacks it until a writing command
    # applies the schema: the question keeps its other searches.
    if (pairs := pairs_query(question)) and await store.index_online(PAIRS_INDEX):
        queries[PAIRS_INDEX] = pairs

    async def ask(limits: dict[str, int]) -> list[tuple[str, IndexPageRow]]:
        rows = await store.read(
            SEARCH_FULLTEXT,
            vault=vault,
            queries=[queries[index] for index in limits],
            indexes=list(limits),
            limits=[*limits.values()],
        )
        return [(row["index"], row) for row in rows]

    pages = await _deepened(ask, list(queries), k, narrow)
    return merged([pages[index][0] for index in queries if index in pages], k)


def merged(pages: list[list[ScoredId]], k: int) -> list[tuple[str, float]]:
    """The best ``k`` of several indexes' pages (each best first), each hit scored by its
    share of its own page's best, best first; a tie goes to the earlier page, then the higher
    BM25 score, then the id. A chunk on two pages (its language's and ``chunk_pairs``) counts
    once, by its better share."""
    ranked = []
    for i, page in enumerate(pages):
        best = max((h["score"] for h in page), default=0.0)
        ranked += [(h["score"] / best, i, h["score"], h["id"]) for h in page if best > 0]
    ranked.sort(key=lambda r: (-r[0], r[1], -r[2], r[3]))
    shares: dict[str, float] = {}
    for share, _, _, c in ranked:
        shares.setdefault(c, share)
    return list(shares.items())[:k]


async def temporal(
    store: GraphStore, vault: str, question: str, k: int, today: date | None = None
) -> list[tuple[str, float]] | None:
    """Chunks of notes dated in the range the question names; None when it names no date."""
    span = question_range(question, today)
    if span is None:
        return None
    rows = await store.read(
        SEARCH_TEMPORAL,
        vault=vault,
        date_from=span.start.isoformat(),
        date_to=span.end.isoformat(),
        middle=span.middle.isoformat(),
        k=k,
    )
    return [(r["id"], r["score"]) for r in rows]


async def placed(
    store: GraphStore, vault: str, ids: list[str], filters: dict[str, object]
) -> dict[str, str]:
    """The chunks of ``ids`` whose note passes ``filters`` (folder, tags, date_from, date_to),
    each with its note's element id, in the order of ``ids``."""
    [row] = await store.read(FILTER_CHUNKS, ids=ids, vault=vault, **filters)
    notes = dict(zip(row["ids"], row["notes"], strict=True))
    return {c: notes[c] for c in ids if c in notes}


async def cited(
    store: GraphStore, ids: list[str], extractors: list[str] | None, limit: int
) -> tuple[dict[str, CitedChunk], list[FactRow]]:
    """The text and place of the hits kept (chunk id → id, path, title, aliases,
    heading_path, line_start, line_end, text), and up to ``limit`` facts they assert."""
    if not ids:
        return {}, []
    [row] = await store.read(CHUNKS_CITED, ids=ids, extractors=extractors, limit=limit)
    return {c["id"]: c for c in row["chunks"]}, [FactRow.from_row(f) for f in row["facts"]]
