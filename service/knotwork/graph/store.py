"""The graph store: every named Cypher query runs through here, with retries and errors
translated (Neo4j down → GraphUnavailableError, pool exhausted → GraphBusyError)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from time import monotonic
from typing import Any, TypeVar, cast

from neo4j import (
    READ_ACCESS,
    WRITE_ACCESS,
    AsyncDriver,
    AsyncManagedTransaction,
    AsyncResult,
    AsyncSession,
)
from neo4j import Query as Statement
from neo4j.exceptions import (
    AuthError,
    ClientError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
)

from knotwork.errors import (
    GraphBusyError,
    GraphUnavailableError,
    QueryTimeoutError,
    SchemaError,
)
from knotwork.graph import cypher
from knotwork.graph.queries import Query, R
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
from knotwork.redact import redact

log = logging.getLogger(__name__)

T = TypeVar("T")
Work = Callable[[AsyncManagedTransaction], Awaitable[T]]  # a transaction's work
# Under read-committed isolation a write can meet a node that a concurrent write (of another
# process: this one writes in turns) deleted meanwhile: Neo4j answers EntityNotFound, a client
# error the driver does not retry. The transaction is then run again as a whole.
RERUN_CODES = frozenset({"Neo.ClientError.Statement.EntityNotFound"})
RERUNS = 5
# A transaction past its time limit: the client's (a read's timeout) or the server's own.
TIMED_OUT = frozenset(
    {
        "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
        "Neo.ClientError.Transaction.TransactionTimedOut",
    }
)

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


def unreachable_hint(uri: str) -> str:
    """What a new user most often lacks when Neo4j does not answer: a server started."""
    where = f"; KNOTWORK_NEO4J_URI is {redact(uri)}" if uri else ""
    return (
        "is Neo4j running? `knotwork neo4j start` (no Docker) or "
        f"`docker compose up -d neo4j`{where}"
    )


@contextmanager
def _translated_errors(uri: str = "") -> Iterator[None]:
    """Connection and credential failures become GraphUnavailableError with a hint."""
    try:
        yield
    except AuthError as exc:
        raise GraphUnavailableError(
            f"Neo4j rejected the credentials: {exc.message}. Check KNOTWORK_NEO4J_USER "
            "and KNOTWORK_NEO4J_PASSWORD."
        ) from exc
    except (ServiceUnavailable, SessionExpired, OSError) as exc:
        raise GraphUnavailableError(
            f"Neo4j is not reachable: {exc}; {unreachable_hint(uri)}"
        ) from exc
    except ValueError as exc:  # the driver's word for a host name that does not resolve
        if "resolve address" not in str(exc):
            raise
        raise GraphUnavailableError(
            f"Neo4j is not reachable: {exc}. Check the host in KNOTWORK_NEO4J_URI (`neo4j` names "
            "the compose service only inside compose; from this machine use 127.0.0.1)"
        ) from exc
    except ClientError as exc:
        if exc.code in TIMED_OUT:
            raise QueryTimeoutError(
                "Neo4j stopped a query that ran past its time limit "
                "(KNOTWORK_NEO4J_QUERY_TIMEOUT_S for reads, or the server's "
                f"db.transaction.timeout): {exc.message}"
            ) from exc
        if "failed to obtain a connection from the pool" not in str(exc):
            raise
        raise GraphBusyError(
            "every connection to Neo4j is in use and none came free in time; retry shortly"
        ) from exc


# The time limit of the reads made in this context and the tasks it starts (``reads_within``).
_READ_LIMIT: ContextVar[float | None] = ContextVar("knotwork_read_limit", default=None)


@contextmanager
def reads_within(seconds: float) -> Iterator[None]:
    """Reads made in this context, and in the tasks started from it, are stopped by Neo4j
    after ``seconds`` (``QueryTimeoutError``): a question's, whose searches must not run
    away and hold a worker. Whole-vault work (a sync, verify, an export) is not bounded."""
    token = _READ_LIMIT.set(seconds)
    try:
        yield
    finally:
        _READ_LIMIT.reset(token)


class _RolledBack(Exception):
    """Raised at the end of ``GraphStore.rolled_back``'s work: the driver rolls back."""


def _delays(initial: float, cap: float) -> Iterator[float]:
    """Exponential backoff with a fifth of jitter, as the driver's own retries."""
    delay = initial
    while True:
        yield min(cap, delay) * random.uniform(0.8, 1.2)  # noqa: S311 (jitter, not a secret)
        delay *= 2


async def result_rows(result: AsyncResult) -> list[dict[str, Any]]:
    """A result's records as dicts of their values as decoded. The queries return plain values,
    lists and maps (never nodes, relationships or paths), so ``Record.data()``'s recursive
    conversion, which checks every value of every nested list and map, is not needed: it was
    the largest share of the client's CPU time in retrieval (bench/RESULTS.md)."""
    keys = result.keys()
    return [dict(zip(keys, record, strict=True)) async for record in result]


def _typed(query: Query[R], rows: list[dict[str, Any]]) -> list[R]:
    """The rows as the query's row type: the one cast of rows to their TypedDict (the unit test
    test_queries.py holds each TypedDict to its file's returned columns)."""
    return cast(list[R], rows)


class Rows(list[Any]):
    """A list parameter that the driver's debug line names by its length. The driver (5.28)
    builds that line, the ``repr`` of every parameter, on every query whether or not debug
    logging is on: for a batch of chunks with their embeddings, megabytes of text formatted
    for nothing (bench/RESULTS.md, "Ingest: the writer's first batch sooner"). It packs as a
    list."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} rows>"


def unlogged(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with every list as ``Rows``: the same values on the wire."""
    return {k: Rows(v) if type(v) is list else v for k, v in params.items()}


async def run_query(tx: AsyncManagedTransaction, query: Query[R], /, **params: Any) -> list[R]:
    """Run a named query inside a transaction of ``GraphStore.write_transaction`` (whose
    retries and error translation cover it), for writes of several queries in one commit."""
    return _typed(query, await result_rows(await tx.run(cypher.load(query.name), unlogged(params))))


class GraphStore:
    """Neo4j through the named queries in ``cypher/``: ``read``/``write`` run one (a typed
    ``Query`` of graph/queries/, whose rows they return as its TypedDict),
    ``write_transaction`` several in one commit (``run_query``), typed methods wrap the ones
    whose results several modules share. Every call passes exactly the parameters its query's
    header declares (tests/unit/test_cypher.py checks each call site)."""

    def __init__(
        self,
        driver: AsyncDriver,
        database: str,
        *,
        unavailable_after_s: float = 1.5,
        retry_s: float = 30.0,
        uri: str = "",
    ) -> None:
        self._driver = driver
        self._database = database
        self._uri = uri  # named in the hint when Neo4j cannot be reached
        # One write transaction at a time in this process. Under read-committed isolation two
        # notes' transactions that meet (a link, a mention, a shared placeholder or entity) can
        # read what the other deletes — a relationship gone mid-statement, a deadlock — and
        # the note transactions are short, so taking turns costs less than retrying.
        self._write_turn = asyncio.Lock()
        self._unavailable_after_s = unavailable_after_s
        self._retry_s = retry_s

    async def _attempts(self, call: Callable[[AsyncSession], Awaitable[T]], *, write: bool) -> T:
        """Run ``call`` on a fresh session, retried whole as the driver would — but a Neo4j
        that does not answer is given ``unavailable_after_s``, not the driver's 30 s, so
        callers learn it is down in a second or two; transient errors (deadlocks, a leader
        switch) keep the full ``retry_s``."""
        started = monotonic()
        connect_delays, transient_delays = _delays(0.1, 0.5), _delays(1.0, 8.0)
        while True:
            try:
                async with self._driver.session(
                    database=self._database,
                    bookmark_manager=self._driver.execute_query_bookmark_manager,
                    default_access_mode=WRITE_ACCESS if write else READ_ACCESS,
                    max_transaction_retry_time=-1,  # one attempt per call: retries are here
                ) as session:
                    return await call(session)
            except (DriverError, Neo4jError) as exc:
                if not exc.is_retryable():
                    raise
                unreachable = isinstance(exc, (ServiceUnavailable, SessionExpired))
                delay = next(connect_delays if unreachable else transient_delays)
                budget = self._unavailable_after_s if unreachable else self._retry_s
                if monotonic() - started + delay > budget:
                    raise
                log.debug("Neo4j transaction retried in %.2f s: %s", delay, exc)
                await asyncio.sleep(delay)

    async def _managed(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        """Run ``work`` in a managed write transaction (``_attempts`` retries it)."""

        async def call(session: AsyncSession) -> T:
            return await session.execute_write(work)

        return await self._attempts(call, write=True)

    async def _run(
        self, query: str, params: dict[str, Any], *, write: bool, timeout_s: float | None = None
    ) -> list[dict[str, Any]]:
        """One statement; a read is given ``timeout_s``, by default the limit of the reads
        made in its context (``reads_within``), else none."""
        params = unlogged(params)

        async def work(tx: AsyncManagedTransaction) -> list[dict[str, Any]]:
            return await result_rows(await tx.run(query, params))

        timed = Statement(query, timeout=timeout_s or _READ_LIMIT.get())

        async def autocommit(session: AsyncSession) -> list[dict[str, Any]]:
            return await result_rows(await session.run(timed, params))

        with _translated_errors(self._uri):
            if write:
                return await self._managed(work)
            # A read of one statement needs no explicit transaction: an auto-commit query is
            # one round trip (run and pull) where a managed one adds begin and commit, about
            # half the driver's work for the small reads retrieval makes (bench/RESULTS.md).
            return await self._attempts(autocommit, write=False)

    async def write_transaction(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        """Run ``work`` in one managed write transaction, one at a time in this process; retried
        whole on transient errors and when a write of another process deleted a node it read
        (``RERUN_CODES``)."""
        async with self._write_turn:
            for attempt in range(RERUNS + 1):
                try:
                    with _translated_errors(self._uri):
                        return await self._managed(work)
                except Neo4jError as exc:
                    if exc.code not in RERUN_CODES or attempt == RERUNS:
                        raise
                    await asyncio.sleep(random.uniform(0.01, 0.05) * (attempt + 1))  # noqa: S311
            raise AssertionError("unreachable")

    async def rolled_back(
        self, work: Callable[[AsyncManagedTransaction], Awaitable[object]]
    ) -> None:
        """Run ``work`` in a write transaction, in turn with this process's writes (see
        ``write_transaction``), that is always rolled back (ingest/rehearse.py)."""

        async def call(tx: AsyncManagedTransaction) -> None:
            await work(tx)
            raise _RolledBack

        async with self._write_turn:
            with contextlib.suppress(_RolledBack), _translated_errors(self._uri):
                await self._managed(call)

    async def read(self, query: Query[R], /, **params: Any) -> list[R]:
        return _typed(query, await self._run(cypher.load(query.name), params, write=False))

    async def read_within(self, timeout_s: float, query: Query[R], /, **params: Any) -> list[R]:
        """``read`` with its own time limit instead of the store's read timeout."""
        text = cypher.load(query.name)
        return _typed(query, await self._run(text, params, write=False, timeout_s=timeout_s))

    async def write(self, query: Query[R], /, **params: Any) -> list[R]:
        return _typed(query, await self._run(cypher.load(query.name), params, write=True))

    async def server_info(self) -> ServerInfo:
        rows = await self.read(SERVER_INFO)
        row = next((r for r in rows if r["name"] == "Neo4j Kernel"), rows[0])
        return ServerInfo(name=row["name"], version=row["version"], edition=row["edition"])

    async def apoc_installed(self) -> bool:
        rows = await self.read(APOC_INSTALLED)
        return bool(rows and rows[0]["apoc"])

    async def apply_schema(self, embedding_dimension: int) -> None:
        params = {"embedding_dimension": embedding_dimension}
        for statement in [*cypher.statements("schema_retired"), *cypher.statements("schema")]:
            try:
                await self._run(statement, params, write=True)
            except Neo4jError as exc:
                raise SchemaError(
                    f"applying the schema failed at {statement[:60]!r}: {exc}"
                ) from exc

    async def await_indexes(self, timeout_s: float) -> None:
        try:  # the read's own time limit is the wait's, and some more for the answer
            await self.read_within(timeout_s + 30, AWAIT_INDEXES, timeout_s=int(timeout_s))
        except (Neo4jError, QueryTimeoutError) as exc:
            states = ", ".join(f"{s.name}={s.state}" for s in await self.index_states())
            why = exc.message if isinstance(exc, Neo4jError) else str(exc)
            raise SchemaError(
                f"indexes did not come ONLINE within {timeout_s:.0f} s ({states}): {why}"
            ) from exc

    async def index_states(self) -> list[IndexState]:
        return [IndexState(**row) for row in await self.read(INDEX_STATES)]

    async def get_manifest(self) -> dict[str, Any] | None:
        rows = await self.read(MANIFEST_GET)
        return _plain(rows[0]["manifest"]) if rows else None

    async def put_manifest(
        self, *, schema_version: int, embed_model: str, embed_dimension: int, knotwork_version: str
    ) -> dict[str, Any]:
        rows = await self.write(
            MANIFEST_PUT,
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
            (await self.write(VAULT_DROP_BATCH, vault=vault, limit=batch))[0]["deleted"]
        ):
            total += deleted
        return total

    async def drop_vector_index(self) -> None:
        for statement in cypher.statements("vector_index_drop"):
            await self._run(statement, {}, write=True)

    async def calibration(self, vault: str, embed_model: str) -> CalibrationGetRow | None:
        """The vault's relevance calibration for one embedding model (floor, probe_mean,
        probes, languages, calibrated_at), or None when it has none (retrieve/relevance.py)."""
        rows = await self.read(CALIBRATION_GET, vault=vault, embed_model=embed_model)
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
