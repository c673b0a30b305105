"""All-zero vectors in a graph written before embeddings were checked (llm/vectors.py).

Earlier versions stored a model's zero answer as a chunk's, an entity's or a note's vector. No
cosine index holds such a vector, so vector search never finds its chunk, and Neo4j's
``vector.similarity.cosine`` refuses it, so the queries that score chunks by it
(walk_scores.cypher, walk_hops.cypher, notes_named.cypher) score it 0 as if unembedded.

Applying the schema (``schema.ensure_ready``: serve, mcp, init, ingest, retry, watch, calibrate,
verify) forgets them once and puts their chunks and entities back to pending, so the watcher's
periodic retry or ``knotwork retry`` embeds them again; the manifest's schema version, written
after, says it was done. Finding them reads every vector, so it is done only while the
manifest predates the check: then ``knotwork doctor`` (and ``/health``) report them, and ``ask``
and ``retrieve`` say so once per process. ``knotwork reembed`` embeds every chunk again, these
too.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from knotwork.graph.queries.admin import VECTORS_ZERO_COUNT, VECTORS_ZERO_RESET
from knotwork.graph.store import GraphStore
from knotwork.plural import counted

log = logging.getLogger(__name__)

CHECKED_SINCE = 2  # the schema version (graph/schema.py) of graphs that hold no zero vector
FORGET_BATCH = 10_000  # vectors of each label forgotten per transaction
FIX = "run `knotwork retry` to embed them again (or `knotwork reembed`, which embeds every chunk)"
_warned = False  # warn_left has spoken in this process


@dataclass(frozen=True)
class ZeroVectors:
    chunks: int = 0
    entities: int = 0

    def __bool__(self) -> bool:
        return bool(self.chunks or self.entities)

    def __str__(self) -> str:
        held = [counted(self.chunks, "chunk")] if self.chunks else []
        held += [counted(self.entities, "entity name")] if self.entities else []
        return " and ".join(held)


def predates_check(manifest: Mapping[str, Any] | None) -> bool:
    """Whether a graph with this manifest may hold zero vectors (None: no manifest yet)."""
    return manifest is None or int(manifest.get("schema_version") or 0) < CHECKED_SINCE


async def count(store: GraphStore) -> ZeroVectors:
    """The chunks and entities holding a zero vector (a scan of every vector)."""
    [row] = await store.read(VECTORS_ZERO_COUNT)
    return ZeroVectors(int(row["chunks"]), int(row["entities"]))


async def forget(store: GraphStore) -> ZeroVectors:
    """Remove every zero vector, its chunk or entity back to pending, batch by batch (each its
    own transaction); how many there were, said in a warning when there were any."""
    chunks = entities = 0
    while True:
        [row] = await store.write(VECTORS_ZERO_RESET, limit=FORGET_BATCH)
        chunks, entities = chunks + int(row["chunks"]), entities + int(row["entities"])
        if max(row["chunks"], row["entities"], row["notes"]) < FORGET_BATCH:
            break
    found = ZeroVectors(chunks, entities)
    if found:
        log.warning(
            "%s had zero vectors (stored by a version before embeddings were checked), which "
            "vector search cannot find: put back to pending, the watcher's retry or "
            "`knotwork retry` embeds them again",
            found,
        )
    return found


def said(found: ZeroVectors) -> str:
    """What ``found`` means for search, for a report or a warning."""
    have = "has" if found.chunks + found.entities == 1 else "have"
    return (
        f"{found} {have} zero vectors (stored by a version before embeddings were checked), "
        "which vector search passes by"
    )


async def warn_left(store: GraphStore, manifest: Mapping[str, Any] | None) -> None:
    """For a command that reads the graph without opening it for writes: warn, once per
    process, of the zero vectors a graph not yet opened by this version holds."""
    global _warned
    if _warned or not predates_check(manifest):
        return
    _warned = True
    if found := await count(store):
        log.warning("%s; %s", said(found), FIX)
