"""The graph store: the schema, manifest and admin operations on top of the transaction
runner (graph/transactions.py), which runs every named Cypher query with retries and errors
translated (graph/failures.py: Neo4j down → GraphUnavailableError, pool exhausted →
GraphBusyError, a transient error past the retries → GraphTransientError, any other error of
the server → GraphQueryError). The runner's helpers are named here too, where the rest of the
package imports them from."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from time import monotonic
from typing import Any

from neo4j import AsyncDriver

from knotwork.errors import GraphQueryError, GraphTransientError, QueryTimeoutError, SchemaError
from knotwork.graph import cypher
from knotwork.graph.queries.admin import (
    APOC_INSTALLED,
    AWAIT_INDEXES,
    CALIBRATION_GET,
    CHUNK_COUNT,
    CHUNK_EMBEDDING_SET,
    CHUNKS_PAGE,
    INDEX_STATES,
    MANIFEST_GET,
    MANIFEST_PUT,
    SERVER_INFO,
    VAULT_DROP_BATCH,
    CalibrationGetRow,
)
from knotwork.graph.queries.writes import NOTE_EMBEDDING_FOLLOW
from knotwork.graph.reembed_guard import GUARD
from knotwork.graph.rows import Rows, result_rows, run_query, unlogged
from knotwork.graph.transactions import TransactionRunner, Work, reads_within
from knotwork.model_names import spellings

__all__ = [
    "EXPECTED_INDEXES",
    "GraphStore",
    "IndexState",
    "Rows",
    "ServerInfo",
    "Work",
    "reads_within",
    "result_rows",
    "run_query",
    "unlogged",
]

log = logging.getLogger(__name__)
MISSING_RECHECK_S = 60.0  # a missing index is looked for again after this: another process's
# writing command may have applied the schema meanwhile

# Every index schema.cypher creates (constraints are backed by indexes of the same name).
EXPECTED_INDEXES = (
    "calibration_vault",
    "chunk_embedding",
    "chunk_embedding_state",
    "chunk_id",
    "chunk_pending",
    "chunk_text_en",
    "chunk_text_it",
    "chunk_text_de",
    "chunk_text_fr",
    "chunk_text_es",
    "chunk_text_pt",
    "chunk_text_th",
    "chunk_text_cjk",
    "chunk_text_ru",
    "chunk_text_ar",
    "chunk_pairs",
    "chunk_words",
    "entity_embedding",
    "entity_embedding_state",
    "entity_key",
    "entity_mkey",
    "entity_names",
    "lease_vault",
    "manifest_key",
    "mention_target",
    "note_embedding",
    "note_key",
    "note_mkey",
    "note_mtitle",
    "note_mloose",
    "note_mparen",
    "note_stem",
    "revision_path",
    "unresolved_key",
)


@dataclass(frozen=True)
class ServerInfo:
    name: str
    version: str
    edition: str


@dataclass(frozen=True)
class IndexState:
    name: str
    type: str
    state: str
    population: float
    dimension: int | None


def _plain(props: dict[str, Any]) -> dict[str, Any]:
    """Node properties with Neo4j temporal values as ISO strings, ready for JSON."""
    return {k: v.iso_format() if hasattr(v, "iso_format") else v for k, v in props.items()}


class GraphStore(TransactionRunner):
    """The transaction runner with typed methods for the queries whose results several
    modules share, and for the schema, the manifest and whole-vault admin work."""

    def __init__(self, driver: AsyncDriver, database: str, **options: Any) -> None:
        super().__init__(driver, database, **options)
        self._online: set[str] = set()  # found ONLINE: indexes are never dropped under us
        self._missing: dict[str, float] = {}  # not ONLINE → when that was read (monotonic)
        self._said: set[str] = set()

    async def server_info(self) -> ServerInfo:
        rows = await self.read(SERVER_INFO)
        row = next((r for r in rows if r["name"] == "Neo4j Kernel"), rows[0])
        return ServerInfo(name=row["name"], version=row["version"], edition=row["edition"])

    async def apoc_installed(self) -> bool:
        rows = await self.read(APOC_INSTALLED)
        return bool(rows and rows[0]["apoc"])

    async def apply_schema(self, embedding_dimension: int) -> None:
        self._missing.clear()  # each is looked for again, once ONLINE
        params = {"embedding_dimension": embedding_dimension}
        for statement in [*cypher.statements("schema_retired"), *cypher.statements("schema")]:
            try:
                await self._run(statement, params, write=True)
            except (GraphQueryError, GraphTransientError) as exc:
                raise SchemaError(
                    f"applying the schema failed at {statement[:60]!r}: {exc}"
                ) from exc

    async def await_indexes(self, timeout_s: float) -> None:
        try:  # the read's own time limit is the wait's, and some more for the answer
            await self.read_within(timeout_s + 30, AWAIT_INDEXES, timeout_s=int(timeout_s))
        except (GraphQueryError, GraphTransientError, QueryTimeoutError) as exc:
            states = ", ".join(f"{s.name}={s.state}" for s in await self.index_states())
            raise SchemaError(
                f"indexes did not come ONLINE within {timeout_s:.0f} s ({states}): {exc}"
            ) from exc

    async def index_states(self) -> list[IndexState]:
        return [IndexState(**row) for row in await self.read(INDEX_STATES)]

    async def index_online(self, name: str) -> bool:
        """Whether index ``name`` is ONLINE, for a search a graph of an older schema version
        may lack: a read command applies no schema, and querying a missing index fails the
        whole query. Read once per store, a missing index again after MISSING_RECHECK_S or
        this store applying the schema; said once."""
        if name in self._online:
            return True
        if monotonic() - self._missing.get(name, float("-inf")) < MISSING_RECHECK_S:
            return False
        state = next((s.state for s in await self.index_states() if s.name == name), None)
        if state == "ONLINE":
            self._online.add(name)
            self._missing.pop(name, None)
            return True
        self._missing[name] = monotonic()
        if name not in self._said:
            self._said.add(name)
            log.info(
                "the index %s is %s: searches that need it are skipped until `knotwork init` or"
                " a command that writes applies the schema",
                name,
                "missing" if state is None else f"{state.lower()}, not yet online",
            )
        return False

    async def get_manifest(self) -> dict[str, Any] | None:
        """The manifest; while it is marked as re-embedding, ``reembedding_by`` names the live
        `knotwork reembed` doing it (none: that one was interrupted)."""
        rows = await self.read(MANIFEST_GET, guard=GUARD)
        if not rows:
            return None
        manifest, running = _plain(rows[0]["manifest"]), rows[0]["reembed"]
        if manifest.get("reembedding_model") and running:
            manifest["reembedding_by"] = (
                f"{running.get('holder')}, host {running.get('host')}, pid {running.get('pid')}"
            )
        return manifest

    async def put_manifest(
        self,
        *,
        schema_version: int,
        embed_model: str,
        embed_provider: str,
        embed_dimension: int,
        knotwork_version: str,
    ) -> dict[str, Any]:
        rows = await self.write(
            MANIFEST_PUT,
            schema_version=schema_version,
            embed_model=embed_model,
            embed_provider=embed_provider,
            embed_dimension=embed_dimension,
            knotwork_version=knotwork_version,
        )
        return _plain(rows[0]["manifest"])

    async def drop_vault(self, vault: str, batch: int = 5000) -> int:
        """Delete every node of one vault, in batches; the number deleted."""
        total = 0
        while deleted := int(
            (await self.write(VAULT_DROP_BATCH, vault=vault, limit=batch))[0]["deleted"]
        ):
            total += deleted
        return total

    async def drop_vector_index(self) -> None:
        for statement in cypher.statements("vector_index_drop"):
            await self._run(statement, {}, write=True, name="vector_index_drop")

    async def calibration(self, vault: str, embed_model: str) -> CalibrationGetRow | None:
        """The vault's relevance calibration for one embedding model (floor, probe_mean,
        probes, languages, calibrated_at), or None when it has none (retrieve/relevance.py)."""
        rows = await self.read(CALIBRATION_GET, vault=vault, embed_models=spellings(embed_model))
        return rows[0] if rows else None

    async def chunk_count(self) -> int:
        return int((await self.read(CHUNK_COUNT))[0]["chunks"])

    async def chunks_page(self, after: str, limit: int) -> list[tuple[str, str, str, str]]:
        """(id, embed hash, context, text) of up to ``limit`` chunks with ids after ``after``."""
        rows = await self.read(CHUNKS_PAGE, after=after, limit=limit)
        return [(r["id"], r["embed_hash"], r["context"], r["text"] or "") for r in rows]

    async def set_chunk_embeddings(self, rows: Sequence[tuple[str, str, Sequence[float]]]) -> int:
        """Store (id, embed hash, vector) embeddings on chunks whose embedded text still has
        that hash."""
        payload = [{"id": cid, "embed_hash": h, "embedding": list(vec)} for cid, h, vec in rows]
        result = await self.write(CHUNK_EMBEDDING_SET, rows=payload)
        # Their notes' vectors are the mean of their chunks': they follow at once.
        await self.write(NOTE_EMBEDDING_FOLLOW, ids=[cid for cid, _, _ in rows])
        return int(result[0]["updated"]) if result else 0
