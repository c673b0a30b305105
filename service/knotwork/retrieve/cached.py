"""What retrieval keeps between questions: walks from the same seeds, the vault's note count and
languages, and its dated notes, each under the vault's generation — a token every write
transaction that changes the vault's notes or facts renews (revisions_append.cypher) — so a
write makes them stale at once, in this process or any other. A vault without a generation yet
(no write since this version) keeps nothing but a minute-old note count (search.vault_notes)."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import date

from knotwork.graph.memo import Memo
from knotwork.graph.queries.reads import VAULT_DATES, VAULT_GENERATION, VAULT_PROFILE
from knotwork.graph.store import GraphStore
from knotwork.retrieve import search
from knotwork.retrieve.dated_notes import DatedNotes
from knotwork.retrieve.temporal import question_range
from knotwork.retrieve.walk import Scores, Walk, walk_scored


async def generation(store: GraphStore, vault: str) -> str | None:
    rows = await store.read(VAULT_GENERATION, vault=vault)
    return rows[0]["generation"] if rows else None


@dataclass(frozen=True)
class VaultView:
    """What retrieval reads of a vault once per generation."""

    notes: int  # how many notes it holds
    generation: str | None  # None: no write has set one, nothing is kept
    # Of its notes' chunks, the most notes' language first; None: not known, ask every index.
    languages: tuple[str, ...] | None


async def vault_view(
    store: GraphStore,
    vault: str,
    memo: Memo,
    minute_old: dict[str, tuple[float, int]],
) -> VaultView:
    """The vault's note count and languages, read again only after a write."""
    gen = await generation(store, vault)
    if gen is None:
        return VaultView(await search.vault_notes(store, vault, minute_old), None, None)
    key = ("view", vault, gen)
    view = memo.get(key)
    if not isinstance(view, VaultView):
        [row] = await store.read(VAULT_PROFILE, vault=vault)
        languages = None if row["unknown"] else tuple(row["languages"])
        view = VaultView(int(row["notes"]), gen, languages)
        memo.put(key, view)
    return view


async def notes(view: Awaitable[VaultView]) -> int:
    """The vault's note count, once its view is read."""
    return (await view).notes


async def walk_once(
    store: GraphStore,
    memo: Memo,
    key: tuple[str, str | None],
    seeds: dict[str, str],
    depth: int,
    extractors: list[str] | None,
    similar_first: bool = False,
    max_mentioned_by: int | None = None,
    seed_chunks: tuple[str, ...] = (),
    embedding: list[float] | None = None,
    words: tuple[str, ...] = (),
) -> tuple[Walk, Scores | None]:
    """``walk`` from ``seeds`` and ``seed_chunks``' notes, kept under ``key`` (vault,
    generation) for the next question with the same seeds and bounds; callers only read it.
    A walk taken now comes scored against ``embedding`` (in its own query); a kept one does
    not (None: graphrank.walk_ranking scores it)."""
    vault, gen = key
    args = (store, seeds, depth, extractors, similar_first, max_mentioned_by, seed_chunks)
    if gen is None:
        return await walk_scored(*args, embedding, words)
    ident = (
        "walk",
        vault,
        gen,
        tuple(seeds.items()),
        seed_chunks,
        depth,
        None if extractors is None else tuple(extractors),
        similar_first,
        max_mentioned_by,
    )
    found = memo.get(ident)
    if isinstance(found, Walk):
        return found, None
    result, scores = await walk_scored(*args, embedding, words)
    memo.put(ident, result)
    return result, scores


async def temporal(
    store: GraphStore,
    memo: Memo,
    key: tuple[str, str | None],
    question: str,
    k: int,
    today: date | None = None,
) -> list[tuple[str, float]] | None:
    """search.temporal, answered from the vault's dated notes, read once per generation (at
    the first question naming a date) instead of scanning every note for each."""
    vault, gen = key
    span = question_range(question, today)
    if span is None or gen is None:
        return None if span is None else await search.temporal(store, vault, question, k, today)
    ident = ("dates", vault, gen)
    dated = memo.get(ident)
    if not isinstance(dated, DatedNotes):
        [row] = await store.read(VAULT_DATES, vault=vault)
        dated = DatedNotes.from_row(row)
        memo.put(ident, dated)
    return dated.nearest(span, k)
