"""Schema and manifest: create what the graph needs, and refuse a graph built for another model."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from knotwork import __version__
from knotwork.errors import (
    GraphUnavailableError,
    LeaseLostError,
    ManifestMismatchError,
    ModelUnavailableError,
    ReembedInterruptedError,
    SchemaError,
    VectorsRejectedError,
)
from knotwork.graph import pairs, zero_vectors
from knotwork.graph.queries.admin import (
    CHUNKS_EMBEDDING_REFUSED,
    ENTITIES_EMBEDDING_RESET,
    MANIFEST_REEMBEDDED,
    MANIFEST_REEMBEDDING,
)
from knotwork.graph.queries.writes import NOTE_EMBEDDING_BACKFILL
from knotwork.graph.reembed_guard import GUARD, lost
from knotwork.graph.store import GraphStore, ServerInfo
from knotwork.model_names import same_model
from knotwork.models import embed_text, now_ms
from knotwork.plural import counted
from knotwork.settings import Settings

log = logging.getLogger(__name__)
# The texts' vectors, None for each the model refused alone (``reembed``'s ``embed``).
Embed = Callable[[list[str]], Awaitable[Sequence[Sequence[float] | None]]]

# 2: embeddings are checked before they are stored; a graph of 1 may hold zero vectors, which
# ensure_ready forgets once (zero_vectors.CHECKED_SINCE). 3: a chunk holding Lao, Khmer or
# Myanmar keeps the pairs of their runs; ensure_ready gives a graph of 2 theirs once
# (pairs.PAIRED_SINCE).
SCHEMA_VERSION = 3
MIN_NEO4J = (5, 26)
BACKFILL_BATCH = 500  # notes given their note vector per transaction
# How long a server keeps the manifest it read (core.MANIFEST_RECHECK_S); `reembed` waits this
# long between its mark and the indexes dropped.
MANIFEST_RECHECK_S = 2.0


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("-")[0].split(".")[:2] if p.isdigit())


async def check_server(store: GraphStore) -> ServerInfo:
    """The server's name, version and edition; GraphUnavailableError when older than 5.26."""
    info = await store.server_info()
    if _version_tuple(info.version) < MIN_NEO4J:
        raise GraphUnavailableError(
            f"Neo4j {info.version} is too old: Knotwork needs {'.'.join(map(str, MIN_NEO4J))} "
            "or newer (vector indexes with cosine similarity and Cypher 5 syntax)."
        )
    return info


def mismatch(
    manifest: dict[str, Any] | None, settings: Settings, *, changed: bool = False
) -> ManifestMismatchError | None:
    """The refusal of ``manifest`` when it names another model or dimension than ``settings``
    (``changed``: it matched them before, see ManifestMismatchError); None when it matches or
    there is none yet. A manifest marked as re-embedding is refused whatever the settings: its
    vectors and indexes are part one model's, part another's (ReembedInterruptedError)."""
    if manifest is not None and manifest.get("reembedding_model"):
        return ReembedInterruptedError(
            str(manifest["reembedding_model"]),
            int(manifest.get("reembedding_dimension") or 0),
            settings.embed_model,
            settings.embed_dimension,
            running=manifest.get("reembedding_by"),
        )
    if manifest is None or (
        same_model(str(manifest.get("embed_model")), settings.embed_model)
        and manifest.get("embed_dimension") == settings.embed_dimension
    ):
        return None
    return ManifestMismatchError(
        str(manifest.get("embed_model")),
        int(manifest.get("embed_dimension") or 0),
        settings.embed_model,
        settings.embed_dimension,
        changed=changed,
        wanted_provider=settings.embed_provider,
        stored_provider=manifest.get("embed_provider"),
    )


async def check_manifest(store: GraphStore, settings: Settings) -> dict[str, Any] | None:
    """The stored manifest; ManifestMismatchError when it names another model or dimension."""
    manifest = await store.get_manifest()
    if (refused := mismatch(manifest, settings)) is not None:
        raise refused
    return manifest


def _not_newer(manifest: dict[str, Any] | None) -> None:
    """SchemaError when ``manifest`` was written by a newer Knotwork: this version does not
    know what its schema holds, and writing its own version would hide that from the newer."""
    stored = int((manifest or {}).get("schema_version") or 0)
    if stored > SCHEMA_VERSION:
        raise SchemaError(
            f"this graph was written by a newer Knotwork (schema {stored}); upgrade Knotwork "
            f"(this one knows schema {SCHEMA_VERSION})"
        )


async def ensure_ready(store: GraphStore, settings: Settings) -> dict[str, Any]:
    """Check the server and manifest, apply the schema, wait for ONLINE indexes, bring a graph
    of an older schema version up to date; the manifest. A graph of a newer schema version is
    refused (SchemaError) before anything is written: the version never goes down."""
    await check_server(store)
    manifest = await check_manifest(store, settings)
    _not_newer(manifest)
    await store.apply_schema(settings.embed_dimension)
    await store.await_indexes(settings.neo4j_index_timeout_s)
    states = {s.name: s for s in await store.index_states()}
    for name in ("chunk_embedding", "note_embedding", "entity_embedding"):
        vector = states.get(name)
        if vector is None:
            raise SchemaError(f"the {name} vector index is missing after applying the schema")
        if vector.dimension != settings.embed_dimension:
            # An index left by another configuration with no manifest beside it.
            raise ManifestMismatchError(
                (manifest or {}).get("embed_model"),
                int(vector.dimension or 0),
                settings.embed_model,
                settings.embed_dimension,
                wanted_provider=settings.embed_provider,
                stored_provider=(manifest or {}).get("embed_provider"),
            )
    if zero_vectors.predates_check(manifest):
        await zero_vectors.forget(store)  # before the backfill: a note's zero vector goes too
    while (await store.write(NOTE_EMBEDDING_BACKFILL, limit=BACKFILL_BATCH))[0]["updated"]:
        pass  # a graph written before notes had vectors: each batch its own transaction
    if pairs.predates(manifest):
        await pairs.backfill(store)
    if (
        manifest is None
        or int(manifest.get("schema_version") or 0) < SCHEMA_VERSION
        # Written before manifests recorded the provider (or by another with the same model):
        # the mismatch advice then needs no guess from the model's name.
        or manifest.get("embed_provider") != settings.embed_provider
    ):
        manifest = await store.put_manifest(
            schema_version=SCHEMA_VERSION,
            embed_model=settings.embed_model,
            embed_provider=settings.embed_provider,
            embed_dimension=settings.embed_dimension,
            knotwork_version=__version__,
        )
        _not_newer(manifest)  # a newer version wrote since it was read: its own kept
        log.info(
            "manifest written: %s (%d dimensions)", settings.embed_model, settings.embed_dimension
        )
    return manifest


@dataclass
class Reembedded:
    """What `knotwork reembed` did, filled in as it goes (how far it got, if stopped): the
    manifest marked, the chunks of ``total`` given the new model's vector, those whose text
    it refused alone, left pending for `knotwork retry` (vault → note path → chunks), and
    the manifest named for the model (``ended``)."""

    embedded: int = 0
    refused: dict[str, Counter[str]] = field(default_factory=dict)
    marked: bool = False  # the mark is written (or under way): the graph is refused until done
    total: int | None = None  # the chunks to re-embed, once counted
    ended: bool = False


async def reembed(
    store: GraphStore,
    settings: Settings,
    embed: Embed,
    progress: Callable[[int, int], None] | None = None,
    *,
    holder: str | None = None,
    report: Reembedded | None = None,
) -> Reembedded:
    """Re-embed every chunk with the configured model; rebuild the vector indexes and manifest.

    ``embed``: the texts' vectors, checked (llm/reembed_vectors.py), None for a text the model
    refuses alone: its chunk loses the old model's vector and waits for `knotwork retry`,
    stamped as refused (chunks_embedding_refused.cypher), so one text refused for good never
    keeps a run from completing. A VectorsRejectedError (the model refuses every text) becomes
    a SchemaError naming it, and nothing of that page is stored; the model out of reach
    (ModelUnavailableError) is said with how far the re-embedding got. Entity names are left
    pending: the next note write or `knotwork retry` embeds them and rebuilds their similarity
    edges.

    Safe to run again after an interruption: the manifest is marked as re-embedding to the
    model before anything is dropped and named for it (the mark cleared) only at the end, so
    until then every command refuses the graph as an interrupted re-embedding, and a run again
    redoes it all. ``report`` is filled in as it goes: a caller stopped says how far it got.

    ``holder``: of the lease over every vault (graph/reembed_lease.py) the caller holds; the
    manifest is named for the model (the mark cleared) only while it is still live and its
    own, in one transaction, else LeaseLostError: a run that paused past the lease's TTL may
    have been followed by another, whose mark must stay. None: no re-embedding may hold it.
    """
    await check_server(store)
    _not_newer(await store.get_manifest())  # before anything of a newer version's is touched
    out = report if report is not None else Reembedded()
    out.total = total = await store.chunk_count()
    out.marked = True  # before the write: a stop while it is under way may find it landed
    await store.write(
        MANIFEST_REEMBEDDING, model=settings.embed_model, dimension=settings.embed_dimension
    )
    # A server keeps the manifest it read this long (core.check_manifest): it sees the mark,
    # and refuses plainly, before a search meets a dropped index.
    await asyncio.sleep(MANIFEST_RECHECK_S)
    await store.write(ENTITIES_EMBEDDING_RESET)  # `knotwork retry` or the next write redoes them
    await store.drop_vector_index()
    await store.apply_schema(settings.embed_dimension)
    await store.await_indexes(settings.neo4j_index_timeout_s)
    seen, after = 0, ""
    while page := await store.chunks_page(after, settings.embed_batch_size):
        texts = [embed_text(context, text) for _, _, context, text in page]
        where = f"chunk {page[0][0]} and the {len(page) - 1} after it"
        so_far = (
            f"{out.embedded} of {counted(total, 'chunk')} re-embedded so far. The graph stays "
            "refused until `knotwork reembed` completes: run it again"
        )
        try:
            vectors = await embed(texts)
        except VectorsRejectedError as exc:  # the model answered garbage: store none of it
            raise SchemaError(f"{settings.embed_model} {exc} ({where}); {so_far}") from exc
        except ModelUnavailableError as exc:  # down: run it again once the model answers
            raise ModelUnavailableError(
                f"{settings.embed_model} could not embed {where}: {exc}. {so_far}"
            ) from exc
        rows = [(cid, h, vec) for (cid, h, *_), vec in zip(page, vectors, strict=True)]
        if good := [(cid, h, vec) for cid, h, vec in rows if vec is not None]:
            out.embedded += await store.set_chunk_embeddings(good)
        if refused := [{"id": cid, "embed_hash": h} for cid, h, vec in rows if vec is None]:
            # After the good ones' notes are summed: a note of both is summed without it.
            for row in await store.write(
                CHUNKS_EMBEDDING_REFUSED,
                rows=refused,
                dimension=settings.embed_dimension,
                at=now_ms(),  # stamped: a background pass leaves them to the back-off
            ):
                out.refused.setdefault(row["vault"], Counter())[row["note_path"] or ""] += 1
        seen += len(page)
        after = page[-1][0]
        if progress:
            progress(seen, total)
    if pairs.predates(await store.get_manifest()):  # the manifest written next says it is done
        await pairs.backfill(store)
    [end] = await store.write(  # done: the model named and the mark cleared at once
        MANIFEST_REEMBEDDED,
        guard=GUARD,
        holder=holder,
        schema_version=SCHEMA_VERSION,
        embed_model=settings.embed_model,
        embed_provider=settings.embed_provider,
        embed_dimension=settings.embed_dimension,
        knotwork_version=__version__,
    )
    if not end["ok"]:
        raise LeaseLostError(*lost(end["reembed"] or {}, holder or "", settings.lease_ttl_s))
    out.ended = True
    return out
