"""Similarity edges between entities (HippoRAG's synonym edges), derived and never asserted.

The name of every new entity is embedded once; it is then linked by one
``(:Entity)-[:SIMILAR_TO {cosine}]->(:Entity)`` per pair to the entities of its vault whose names
lie within ``KNOTWORK_SIMILARITY_THRESHOLD``. The edges carry no ``source``, so they are never
taken for a note's facts, and they go with either entity. An entity whose name is a value
(ingest/values.py: a date, a number, a URL, a file) is neither embedded nor linked: the next
day's date embeds at a cosine near 0.97 of today's, and is no synonym of it; a vault linked
before that rule (or before it changed) loses its values' vectors and edges once
(``unlink_values``), at its next sync or write, embeddings on or off (ingest/modelcalls.py), and
the names an earlier rule took for values are embedded again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from knotwork.graph.queries.writes import (
    ENTITIES_PENDING,
    ENTITIES_REFUSED_STAMP,
    ENTITIES_VALUES_PAGE,
    ENTITIES_VALUES_UNLINK,
    ENTITY_EMBEDDING_SET,
    ENTITY_SIMILAR_LINK,
)
from knotwork.graph.store import GraphStore
from knotwork.ingest.values import is_value
from knotwork.llm.vectors import Vectors
from knotwork.models import now_ms
from knotwork.settings import Settings

ENTITY_BATCH = 256
MAX_CANDIDATES = 20_000  # the most the index is asked for, as retrieve/search.py's searches
# The rule of values.is_value a vault's entities were last checked against (NameStamp
# values_unlinked): a rule that reads any name otherwise raises it, to check them again (more
# values lose their vectors, fewer give theirs back: unlink_values).
# 2: quarters, weeks, days and months, times, quantities, placeholders; 3: "Mars 2020", "007"
# are names again.
VALUES_UNLINKED = 3
VALUES_PAGE = 1000
Embed = Callable[[list[str]], Awaitable[Vectors | None]]


async def link_new_entities(
    store: GraphStore, settings: Settings, vault: str, embed: Embed, asked_before: int
) -> int:
    """Embed the names of the entities not embedded yet and link the similar ones.

    Only those entities are compared, so an update costs what it added; an entity left
    unembedded (model down: ``embed`` returns None; its name's vector refused: None for it)
    waits for the next call; a refused name is asked once a call, read after the others, and
    not at all when refused at or after ``asked_before`` (ms since the epoch): a write's call
    leaves it to the model's back-off, as a background pass leaves a refused chunk.
    A value's name (``values.is_value``) is not embedded: its entity reads as done at once.
    Returns the edges made; 0 when ``similarity_threshold`` is 1 (the feature is off).
    """
    await unlink_values(store, vault)  # edges the feature made while it was on go too
    threshold = settings.similarity_threshold
    if threshold >= 1.0:
        return 0
    linked, refused = 0, list[str]()  # names refused in this call: asked once, not read again
    while rows := await store.read(
        ENTITIES_PENDING,
        vault=vault,
        limit=ENTITY_BATCH,
        exclude=refused,
        asked_before=asked_before,
    ):
        if values := [row["key"] for row in rows if is_value(row["name"] or row["key"])]:
            await store.write(
                ENTITIES_VALUES_UNLINK, vault=vault, keys=values, names=[], stamp=False, version=0
            )
            skip = set(values)
            if not (rows := [row for row in rows if row["key"] not in skip]):
                continue
        vectors = await embed([row["name"] or row["key"] for row in rows])
        if vectors is None:
            break
        got = [(row["key"], v) for row, v in zip(rows, vectors, strict=True) if v is not None]
        if bad := [row["key"] for row, v in zip(rows, vectors, strict=True) if v is None]:
            # Stamped: a later call reads them after the others, or not within the back-off
            # (entities_pending.cypher).
            refused += bad
            await store.write(ENTITIES_REFUSED_STAMP, vault=vault, keys=bad, at=now_ms())
        if not got:
            continue
        keys = [key for key, _ in got]
        await store.write(
            ENTITY_EMBEDDING_SET, vault=vault, rows=[{"key": k, "embedding": v} for k, v in got]
        )
        linked += await _link(store, vault, keys, settings.similarity_top_k, threshold)
    return linked


async def unlink_values(store: GraphStore, vault: str) -> int:
    """Take the vectors and SIMILAR_TO edges of the vault's values away, once per rule
    (``VALUES_UNLINKED``): entities embedded before the rule was kept hold them, and a new
    name could still be linked to a value's vector; and set the names an earlier rule took
    for values (done with no vector) pending, for ``link_new_entities`` to embed. A page of
    entities a transaction, read by key; the vault's NameStamp records the pass when its last
    page is done, so one cut short is taken up again by the next call. Returns the edges taken
    away."""
    after, unlinked = "", 0
    while True:
        [page] = await store.read(
            ENTITIES_VALUES_PAGE,
            vault=vault,
            version=VALUES_UNLINKED,
            after=after,
            limit=VALUES_PAGE,
        )
        if page["done"]:
            return unlinked
        rows = page["entities"]
        values = {r["key"]: is_value(r["name"] or r["key"]) for r in rows}
        [row] = await store.write(
            ENTITIES_VALUES_UNLINK,
            vault=vault,
            keys=[key for key, value in values.items() if value],
            names=[key for key, value in values.items() if not value],
            stamp=len(rows) < VALUES_PAGE,
            version=VALUES_UNLINKED,
        )
        unlinked += row["updated"]
        if len(rows) < VALUES_PAGE:
            return unlinked
        after = rows[-1]["key"]


async def _link(
    store: GraphStore, vault: str, keys: list[str], top_k: int, threshold: float
) -> int:
    """Link ``keys`` to their ``top_k`` nearest entities of the vault within ``threshold``.
    The vector index holds every vault's entities: an entity whose page came back full of
    other vaults' (or ending inside a tie at its ``top_k``-th, which is taken by key) is asked
    again with four times the neighbours, up to ``MAX_CANDIDATES``, so a vault's edges never
    depend on what other vaults hold."""
    # The entity itself is on its own page, and one neighbour past its top_k-th shows whether
    # that one ends inside a tie: a full page of its own vault is then not asked again.
    k, linked = top_k + 2, set[str]()
    while keys:
        [row] = await store.write(
            ENTITY_SIMILAR_LINK,
            vault=vault,
            keys=keys,
            k=k,
            top_k=top_k,
            min_score=(1.0 + threshold) / 2.0,  # the index scores cosine as (1 + cos) / 2
            deepen=k < MAX_CANDIDATES,
        )
        linked |= set(row["edges"])  # an edge found from both ends, once
        keys, k = row["deeper"], min(k * 4, MAX_CANDIDATES)
    return len(linked)
