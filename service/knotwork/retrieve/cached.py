"""What retrieval keeps between questions: walks from the same seeds, and the vault's note
count, each under the vault's generation — a token every write transaction that changes the
vault's notes or facts renews (revisions_append.cypher) — so a write makes them stale at once,
in this process or any other. A vault without a generation yet (no write since this version)
keeps nothing but a minute-old note count (search.vault_notes)."""

from __future__ import annotations

from knotwork.graph.memo import Memo
from knotwork.graph.store import GraphStore
from knotwork.retrieve import search
from knotwork.retrieve.walk import Walk, walk


async def generation(store: GraphStore, vault: str) -> str | None:
    rows = await store.read("vault_generation", vault=vault)
    return rows[0]["generation"] if rows else None


async def vault_notes(
    store: GraphStore,
    vault: str,
    memo: Memo,
    minute_old: dict[str, tuple[float, int]],
) -> tuple[int, str | None]:
    """(the vault's note count, its generation): the count is read again only after a write."""
    gen = await generation(store, vault)
    if gen is None:
        return await search.vault_notes(store, vault, minute_old), None
    key = ("notes", vault, gen)
    count = memo.get(key)
    if not isinstance(count, int):
        count = await search.vault_notes(store, vault)
        memo.put(key, count)
    return count, gen


async def walk_once(
    store: GraphStore,
    memo: Memo,
    key: tuple[str, str | None],
    seeds: dict[str, str],
    depth: int,
    extractors: list[str] | None,
    similar_first: bool = False,
    max_mentioned_by: int | None = None,
) -> Walk:
    """``walk`` from ``seeds``, kept under ``key`` (vault, generation) for the next question
    with the same seeds and bounds; callers only read the walk."""
    vault, gen = key
    if gen is None:
        return await walk(store, seeds, depth, extractors, similar_first, max_mentioned_by)
    ident = (
        "walk",
        vault,
        gen,
        tuple(seeds.items()),
        depth,
        None if extractors is None else tuple(extractors),
        similar_first,
        max_mentioned_by,
    )
    found = memo.get(ident)
    if isinstance(found, Walk):
        return found
    result = await walk(store, seeds, depth, extractors, similar_first, max_mentioned_by)
    memo.put(ident, result)
    return result
