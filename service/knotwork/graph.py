"""The graph store: one typed async method per named Cypher query, and nothing else."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from neo4j import AsyncDriver, AsyncManagedTransaction, RoutingControl
from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable, SessionExpired

from knotwork import cypher
from knotwork.errors import GraphUnavailableError, SchemaError

T = TypeVar("T")
# Under read-committed isolation a write can meet a node that a concurrent write (of another
# process: this one writes in turns) deleted meanwhile: Neo4j answers EntityNotFound, a client
# error the driver does not retry. The transaction is then run again as a whole.
RERUN_CODES = frozenset({"Neo.ClientError.Statement.EntityNotFound"})
RERUNS = 5

# Every index schema.cypher creates (constraints are backed by indexes of the same name).
EXPECTED_INDEXES = (
    "chunk_embedding",
    "chunk_embedding_state",
    "chunk_id",
    "chunk_mtext",
    "chunk_pending",
    "chunk_text",
    "entity_embedding",
    "entity_embedding_state",
    "entity_key",
    "entity_mkey",
    "entity_names",
    "lease_vault",
    "manifest_key",
    "mention_target",
    "note_key",
    "note_mkey",
    "note_mtitle",
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


@contextmanager
def _translated_errors() -> Iterator[None]:
    """Connection and credential failures become GraphUnavailableError with a hint."""
    try:
        yield
    except AuthError as exc:
        raise GraphUnavailableError(
            f"Neo4j rejected the credentials: {exc.message}. Check KNOTWORK_NEO4J_USER "
            "and KNOTWORK_NEO4J_PASSWORD."
        ) from exc
    except (ServiceUnavailable, SessionExpired, OSError) as exc:
        raise GraphUnavailableError(f"Neo4j is not reachable: {exc}") from exc


class GraphStore:
    """Typed access to Neo4j through the named queries in ``cypher/``."""

    def __init__(self, driver: AsyncDriver, database: str) -> None:
        self._driver = driver
        self._database = database
        # One write transaction at a time in this process. Under read-committed isolation two
        # notes' transactions that meet (a link, a mention, a shared placeholder or entity) can
        # read what the other deletes — a relationship gone mid-statement, a deadlock — and
        # the note transactions are short, so taking turns costs less than retrying.
        self._write_turn = asyncio.Lock()

    async def _run(
        self, query: str, params: dict[str, Any], *, write: bool
    ) -> list[dict[str, Any]]:
        with _translated_errors():
            result = await self._driver.execute_query(
                query,
                params,
                database_=self._database,
                routing_=RoutingControl.WRITE if write else RoutingControl.READ,
            )
        return [record.data() for record in result.records]

    async def write_transaction(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        """Run ``work`` in one managed write transaction, one at a time in this process; retried
        whole on transient errors (by the driver) and when a write of another process deleted a
        node it read (``RERUN_CODES``)."""
        async with self._write_turn:
            return await self._write_transaction(work)

    async def _write_transaction(
        self, work: Callable[[AsyncManagedTransaction], Awaitable[T]]
    ) -> T:
        for attempt in range(RERUNS + 1):
            try:
                with _translated_errors():
                    async with self._driver.session(database=self._database) as session:
                        return await session.execute_write(work)
            except Neo4jError as exc:
                if exc.code not in RERUN_CODES or attempt == RERUNS:
                    raise
                await asyncio.sleep(random.uniform(0.01, 0.05) * (attempt + 1))  # noqa: S311
        raise AssertionError("unreachable")

    async def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return await self._run(cypher.load(name), params, write=False)

    async def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return await self._run(cypher.load(name), params, write=True)

    async def server_info(self) -> ServerInfo:
        rows = await self.read("server_info")
        row = next((r for r in rows if r["name"] == "Neo4j Kernel"), rows[0])
        return ServerInfo(name=row["name"], version=row["version"], edition=row["edition"])

    async def apoc_installed(self) -> bool:
        rows = await self.read("apoc_installed")
        return bool(rows and rows[0]["apoc"])

    async def apply_schema(self, embedding_dimension: int) -> None:
        params = {"embedding_dimension": embedding_dimension}
        for statement in cypher.statements("schema"):
            try:
                await self._run(statement, params, write=True)
            except Neo4jError as exc:
                raise SchemaError(
                    f"applying the schema failed at {statement[:60]!r}: {exc}"
                ) from exc

    async def await_indexes(self, timeout_s: float) -> None:
        try:
            await self.read("await_indexes", timeout_s=int(timeout_s))
        except Neo4jError as exc:
            states = ", ".join(f"{s.name}={s.state}" for s in await self.index_states())
            raise SchemaError(
                f"indexes did not come ONLINE within {timeout_s:.0f} s ({states}): {exc.message}"
            ) from exc

    async def index_states(self) -> list[IndexState]:
        return [IndexState(**row) for row in await self.read("index_states")]

    async def get_manifest(self) -> dict[str, Any] | None:
        rows = await self.read("manifest_get")
        return _plain(rows[0]["manifest"]) if rows else None

    async def put_manifest(
        self, *, schema_version: int, embed_model: str, embed_dimension: int, knotwork_version: str
    ) -> dict[str, Any]:
        rows = await self.write(
            "manifest_put",
            schema_version=schema_version,
            embed_model=embed_model,
            embed_dimension=embed_dimension,
            knotwork_version=knotwork_version,
        )
        return _plain(rows[0]["manifest"])

    async def drop_vault(self, vault: str, batch: int = 5000) -> int:
        """Delete every node of one vault, in batches; the number deleted."""
        total = 0
        while deleted := int(
            (await self.write("vault_drop_batch", vault=vault, limit=batch))[0]["deleted"]
        ):
            total += deleted
        return total

    async def drop_vector_index(self) -> None:
        for statement in cypher.statements("vector_index_drop"):
            await self._run(statement, {}, write=True)

    async def chunk_count(self) -> int:
        return int((await self.read("chunk_count"))[0]["chunks"])

    async def chunks_page(self, after: str, limit: int) -> list[tuple[str, str, str]]:
        """(id, hash, embedded text) of up to ``limit`` chunks with ids after ``after``."""
        rows = await self.read("chunks_page", after=after, limit=limit)
        return [(row["id"], row["hash"], row["text"] or "") for row in rows]

    async def set_chunk_embeddings(self, rows: Sequence[tuple[str, str, Sequence[float]]]) -> int:
        """Store (id, hash, vector) embeddings on chunks whose text is still that hash."""
        payload = [{"id": cid, "hash": h, "embedding": list(vec)} for cid, h, vec in rows]
        result = await self.write("chunk_embedding_set", rows=payload)
        return int(result[0]["updated"]) if result else 0
