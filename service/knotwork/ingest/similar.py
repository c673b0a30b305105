"""Similarity edges between entities (HippoRAG's synonym edges), derived and never asserted.

The name of every new entity is embedded once; it is then linked by one
``(:Entity)-[:SIMILAR_TO {cosine}]->(:Entity)`` per pair to the entities of its vault whose names
lie within ``KNOTWORK_SIMILARITY_THRESHOLD``. The edges carry no ``source``, so they are never
taken for a note's facts, and they go with either entity.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from knotwork.graph.queries.writes import (
    ENTITIES_PENDING,
    ENTITY_EMBEDDING_SET,
    ENTITY_SIMILAR_LINK,
)
from knotwork.graph.store import GraphStore
from knotwork.settings import Settings

ENTITY_BATCH = 256
Embed = Callable[[list[str]], Awaitable[list[list[float]] | None]]


async def link_new_entities(store: GraphStore, settings: Settings, vault: str, embed: Embed) -> int:
    """Embed the names of the entities not embedded yet and link the similar ones.

    Only those entities are compared, so an update costs what it added; an entity left
    unembedded (model down: ``embed`` returns None) waits for the next call. Returns the edges
    made; 0 when ``similarity_threshold`` is 1 (the feature is off).
    """
    threshold = settings.similarity_threshold
    if threshold >= 1.0:
        return 0
    linked = 0
    while rows := await store.read(ENTITIES_PENDING, vault=vault, limit=ENTITY_BATCH):
        vectors = await embed([row["name"] or row["key"] for row in rows])
        if vectors is None:
            break
        keys = [row["key"] for row in rows]
        await store.write(
            ENTITY_EMBEDDING_SET,
            vault=vault,
            rows=[{"key": k, "embedding": v} for k, v in zip(keys, vectors, strict=True)],
        )
        result = await store.write(
            ENTITY_SIMILAR_LINK,
            vault=vault,
            keys=keys,
            k=settings.similarity_top_k + 1,  # the entity itself comes back first
            min_score=(1.0 + threshold) / 2.0,  # the index scores cosine as (1 + cos) / 2
        )
        linked += int(result[0]["linked"]) if result else 0
    return linked
