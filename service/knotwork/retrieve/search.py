"""The seed retrievers, each one named Cypher query: vector, full-text (chunks and entity
names), notes the question names, and dates. Each returns chunk ids best first with its score."""

from __future__ import annotations

import asyncio
import math
import time
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, TypeVar

import regex

from knotwork.graph.queries import Query
from knotwork.graph.queries.reads import (
    CHUNKS_CITED,
    FILTER_CHUNKS,
    FILTER_COUNT,
    NOTES_NAMED,
    SEARCH_FULLTEXT,
    SEARCH_TEMPORAL,
    SEARCH_VECTOR,
    SEARCH_VECTOR_NOTES,
    VAULT_NOTES,
    CitedChunk,
    HitsRow,
    IndexPageRow,
    NoteScoredId,
    ScoredId,
    VectorNotesRow,
)
from knotwork.graph.store import GraphStore
from knotwork.retrieve.temporal import question_range
from knotwork.retrieve.types import FactRow
from knotwork.text.keys import (
    BREAK,
    chunk_grams,
    content_words,
    loose_grams,
    spaceless,
    words,
)
from knotwork.text.language import LANGUAGES
from knotwork.text.stopwords import STOPWORDS

# Han ideographs and hiragana are a term each, as Lucene's tokenizers index them: a run of them
# quoted whole would be a phrase that only the question's exact wording matches.
_ONE_CHAR = "\u3040-\u309f\u3400-\u4dbf\u4e00-\u9fff"
# A word keeps its combining marks, as the index's tokenizer keeps them (``\w`` alone cuts
# "हिन्दी" at its vowel signs into letters no chunk holds alone).
_THAI_RUN = regex.compile(r"[\u0e01-\u0e5b]+")
_TERM = regex.compile(rf"[{_ONE_CHAR}]|[[\p{{L}}\p{{N}}\p{{M}}_]--[{_ONE_CHAR}]]+", regex.V1)
MAX_NAMED = 10  # notes the question names, longest names first
NAMED_CHUNKS = 40  # chunks read of each named note, nearest the question first
FEW = 2  # a name written out by this many notes or fewer is specific in a vault of any size
SIZE_TTL_S = 60.0  # how long a vault's note count is reused
MAX_CANDIDATES = 20_000  # the most an index is asked for while looking for a vault's own
FULLTEXT = [f"chunk_text_{lang}" for lang in LANGUAGES]  # one per language (schema.cypher)
_Page = TypeVar("_Page", HitsRow, VectorNotesRow, IndexPageRow)  # an index's page, any vault
_Hit = TypeVar("_Hit", ScoredId, NoteScoredId)


def lucene_query(question: str) -> str:
    """The question's words (NFC, as notes are indexed), OR-ed and escaped, so no user text is
    read as Lucene syntax."""
    words = _TERM.findall(unicodedata.normalize("NFC", question))[:64]
    # Quoted, so words such as AND, OR, NOT or TO are terms, never operators; a run of Thai
    # bare (nothing in it is syntax), so that the Thai analyzer's words in it are terms each,
    # not one phrase only the question's exact wording matches.
    return " OR ".join(w if _THAI_RUN.fullmatch(w) else f'"{w}"' for w in words)


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

    async def all_found(self, found: int) -> bool:
        """Whether ``found`` hits are every chunk that passes: then no search asks deeper."""
        async with self._counting:
            if self._passing is None:
                [row] = await self.store.read(FILTER_COUNT, vault=self.vault, **self.filters)
                self._passing = int(row["chunks"])
        return found >= self._passing


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
        found = sum(len(hits) for hits, _ in pages.values())
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
    cached.vault_view reads them, the most notes' language first; None: all seven), of the
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
    the fusion")."""
    words = lucene_query(question)
    by_language = dict(zip(LANGUAGES, FULLTEXT, strict=True))
    indexes = (
        FULLTEXT
        if languages is None
        else [by_language[lang] for lang in languages if lang in by_language]
    )
    if not words or not indexes:
        return []

    async def ask(limits: dict[str, int]) -> list[tuple[str, IndexPageRow]]:
        rows = await store.read(
            SEARCH_FULLTEXT,
            vault=vault,
            query=words,
            indexes=list(limits),
            limits=[*limits.values()],
        )
        return [(row["index"], row) for row in rows]

    pages = await _deepened(ask, indexes, k, narrow)
    return merged([pages[index][0] for index in indexes if index in pages], k)


def merged(pages: list[list[ScoredId]], k: int) -> list[tuple[str, float]]:
    """The best ``k`` of several indexes' pages (each best first), each hit scored by its
    share of its own page's best, best first; a tie goes to the earlier page, then the higher
    BM25 score, then the id."""
    ranked = []
    for i, page in enumerate(pages):
        best = max((h["score"] for h in page), default=0.0)
        ranked += [(h["score"] / best, i, h["score"], h["id"]) for h in page if best > 0]
    ranked.sort(key=lambda r: (-r[0], r[1], -r[2], r[3]))
    return [(c, share) for share, _, _, c in ranked[:k]]


def beyond_names(question: str, names: list[str]) -> str | None:
    """The question without the words of ``names`` (mention keys of the notes it names), or
    None when it names nothing or nothing but stop words would be left. A name in Han, kana
    or Hangul goes where it is written whole; the characters left next to each other stay a
    run, as the full-text index has them (lucene_query splits Han and hiragana again)."""
    if not names:
        return None
    asked = words(question)
    drop = {w for n in names for w in n.split() if not spaceless(w)}
    gone = [w in drop for w in asked]
    for name in (n.split() for n in names if any(spaceless(w) for w in n.split())):
        for i in range(len(asked) - len(name) + 1):
            if asked[i : i + len(name)] == name:
                gone[i : i + len(name)] = [True] * len(name)
    pieces: list[str] = []
    for i, word in enumerate(asked):
        if gone[i] or word == BREAK:
            continue
        joined = i > 0 and not gone[i - 1] and spaceless(word) and spaceless(asked[i - 1])
        if joined:
            pieces[-1] += word
        else:
            pieces.append(word)
    if all(w in STOPWORDS for w in pieces):
        return None
    return " ".join(pieces)


@dataclass(frozen=True)
class NamedNote:
    key: str  # the name as matched
    path: str
    node: str  # element id
    chunk_ids: tuple[str, ...]  # nearest the question first
    specificity: float = 1.0  # 1: no other note writes the name out; 0: every note does
    lead: str | None = None  # the note's first chunk (its opening); None: a bare heading


def in_turns(named: list[NamedNote]) -> list[tuple[str, int]]:
    """The named notes' chunks in turns — each note's first, then each note's second, … — each
    with the index of its note in ``named``: a question naming two notes asks about both, so
    the second note's best chunk ranks beside the first note's best, not after all of its
    chunks."""
    turns = [(j, i, c) for i, note in enumerate(named) for j, c in enumerate(note.chunk_ids)]
    return [(c, i) for _, i, c in sorted(turns, key=lambda t: (t[0], t[1]))]


def named_share(question: str, named: list[NamedNote]) -> float:
    """The share of the question's content words (stop words aside) that the named notes'
    names hold: how much the question is about what it names, not merely mentions. Letters
    split off by an apostrophe ("Claude's", "c'è") are no words."""
    asked = [
        w
        for w in words(question)
        if w not in STOPWORDS and (len(w) > 1 or w.isdigit() or spaceless(w))
    ]
    names = {w for n in named for w in n.key.split()}
    return sum(w in names for w in asked) / len(asked) if asked else 0.0


def specificity(mentioned_by: int, notes: int) -> float:
    """How much naming a note says, as an inverse document frequency in [0, 1]: the share of
    the vault's notes that write the name out, on a log scale. A name that only a few notes
    write out is specific whatever the vault's size (in a small vault any share is large)."""
    if mentioned_by <= FEW or notes <= 1:
        return 1.0
    return max(0.0, 1.0 - math.log1p(mentioned_by) / math.log1p(notes))


def max_mentioned_by(notes: int, least: float) -> int:
    """The most notes that may write a name out for it to keep ``specificity >= least``."""
    bound: float = (1.0 + notes) ** (1.0 - least) - 1.0
    return max(FEW, math.floor(bound + 1e-9))


async def vault_notes(
    store: GraphStore, vault: str, memo: dict[str, tuple[float, int]] | None = None
) -> int:
    """How many notes the vault holds. Counting scans the vault's notes, so with ``memo`` a
    count is reused for ``SIZE_TTL_S``: specificity is a logarithm of it, and a minute-old
    count moves it by nothing that matters."""
    now = time.monotonic()
    if memo is not None and vault in memo and now - memo[vault][0] < SIZE_TTL_S:
        return memo[vault][1]
    rows = await store.read(VAULT_NOTES, vault=vault)
    notes = int(rows[0]["notes"]) if rows else 0
    if memo is not None:
        memo[vault] = (now, notes)
    return notes


async def named_notes(
    store: GraphStore,
    vault: str,
    question: str,
    notes: int | Awaitable[int],
    embedding: list[float] | None = None,
) -> list[NamedNote]:
    """Notes whose file name, title or alias the question writes out, longest names first,
    with their chunks nearest the question (``embedding``) and how specific the name is among
    the vault's ``notes`` (awaited only once the query is back: the query does not need it).

    Loosely too (text.keys.loose_key): "half adder e full adder" names "half adder (HA)".
    A name inside a longer matched name ("Rossi" in "Marco Rossi"), compared by content
    words, does not count on its own. A name's specificity is that of its commonest bearer:
    mentions resolve to one note per name, so the others that share it look rarer than the
    name is.
    """
    keys = sorted(chunk_grams(question, (1,)))
    if not keys:
        return []
    loose = sorted(loose_grams(question))
    rows = await store.read(
        NOTES_NAMED,
        vault=vault,
        keys=keys,
        loose=loose,
        chunks=NAMED_CHUNKS,
        embedding=embedding,
    )
    if not isinstance(notes, int):
        notes = await notes
    used: dict[str, int] = {}
    for row in rows:
        used[row["key"]] = max(used.get(row["key"], 0), int(row["mentioned_by"]))
    out: list[NamedNote] = []
    taken: list[str] = []
    for row in rows:
        key = row["key"]
        words = f" {content_words(key)} "
        if any(words in f" {content_words(longer)} " for longer in taken if longer != key):
            continue
        if any(n.path == row["path"] for n in out):
            continue
        taken.append(key)
        rarity = specificity(used[key], notes)
        out.append(
            NamedNote(key, row["path"], row["note"], tuple(row["chunk_ids"]), rarity, row["lead"])
        )
        if len(out) == MAX_NAMED:
            break
    return out


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
    """The text and place of the hits kept (chunk id → id, path, title, heading_path,
    line_start, line_end, text), and up to ``limit`` facts they assert."""
    if not ids:
        return {}, []
    [row] = await store.read(CHUNKS_CITED, ids=ids, extractors=extractors, limit=limit)
    return {c["id"]: c for c in row["chunks"]}, [FactRow.from_row(f) for f in row["facts"]]
