"""Sessions and transactions on the driver: every named query runs through here, retried as
the driver would but failing fast when Neo4j does not answer, writes one at a time in this
process, reads within a question's time limit (``reads_within``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from time import monotonic
from typing import Any, TypeVar

from neo4j import (
    READ_ACCESS,
    WRITE_ACCESS,
    AsyncDriver,
    AsyncManagedTransaction,
    AsyncSession,
)
from neo4j import Query as Statement
from neo4j.exceptions import DriverError, Neo4jError, ServiceUnavailable, SessionExpired

from knotwork.graph import cypher
from knotwork.graph.failures import translated_errors
from knotwork.graph.liveness import Watchdog, waits_for_pool
from knotwork.graph.queries import Query, R
from knotwork.graph.rows import result_rows, typed, unlogged

log = logging.getLogger(__name__)

T = TypeVar("T")
Work = Callable[[AsyncManagedTransaction], Awaitable[T]]  # a transaction's work
# Under read-committed isolation a write can meet a node that a concurrent write (of another
# process: this one writes in turns) deleted meanwhile: Neo4j answers EntityNotFound, a client
# error the driver does not retry. The transaction is then run again as a whole.
RERUN_CODES = frozenset({"Neo.ClientError.Statement.EntityNotFound"})
RERUNS = 5

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
    """Raised at the end of ``TransactionRunner.rolled_back``'s work: the driver rolls back."""


def _delays(initial: float, cap: float) -> Iterator[float]:
    """Exponential backoff with a fifth of jitter, as the driver's own retries."""
    delay = initial
    while True:
        yield min(cap, delay) * random.uniform(0.8, 1.2)  # noqa: S311 (jitter, not a secret)
        delay *= 2


class TransactionRunner:
    """Neo4j through the named queries in ``cypher/``: ``read``/``write`` run one (a typed
    ``Query`` of graph/queries/, whose rows they return as its TypedDict),
    ``write_transaction`` several in one commit (``rows.run_query``). Every call passes
    exactly the parameters its query's header declares (tests/unit/test_cypher.py checks each
    call site)."""

    def __init__(
        self,
        driver: AsyncDriver,
        database: str,
        *,
        unavailable_after_s: float = 1.5,
        retry_s: float = 30.0,
        uri: str = "",
        watchdog: Watchdog | None = None,
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
        # Stops a call when Neo4j accepts connections but does not answer (none: unwatched).
        self._watchdog = watchdog

    async def _attempts(self, call: Callable[[AsyncSession], Awaitable[T]], *, write: bool) -> T:
        """Run ``call`` on a fresh session, retried whole as the driver would — but a Neo4j
        that does not answer is given ``unavailable_after_s``, not the driver's 30 s, so
        callers learn it is down in a second or two; transient errors (deadlocks, a leader
        switch) keep the full ``retry_s``. Each attempt runs under the watchdog: a server that
        accepts connections but does not answer ends it with GraphUnavailableError, not retried."""
        started = monotonic()
        connect_delays, transient_delays = _delays(0.1, 0.5), _delays(1.0, 8.0)

        opened: list[AsyncSession] = []  # the attempt's session, for the watchdog's look

        async def attempt() -> T:
            async with self._driver.session(
                database=self._database,
                bookmark_manager=self._driver.execute_query_bookmark_manager,
                default_access_mode=WRITE_ACCESS if write else READ_ACCESS,
                max_transaction_retry_time=-1,  # one attempt per call: retries are here
            ) as session:
                opened[:] = [session]
                return await call(session)

        def waiting() -> bool:  # for a pooled connection: a busy pool, not a silent server
            return waits_for_pool(self._driver, opened[0] if opened else None)

        while True:
            try:
                if self._watchdog is None:
                    return await attempt()
                return await self._watchdog.run(attempt, waiting)
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
        self,
        query: str,
        params: dict[str, Any],
        *,
        write: bool,
        timeout_s: float | None = None,
        name: str = "",
    ) -> list[dict[str, Any]]:
        """One statement (``name``: its query's, said in a failure); a read is given
        ``timeout_s``, by default the limit of the reads made in its context
        (``reads_within``), else none."""
        params = unlogged(params)

        async def work(tx: AsyncManagedTransaction) -> list[dict[str, Any]]:
            return await result_rows(await tx.run(query, params))

        timed = Statement(query, timeout=timeout_s or _READ_LIMIT.get())

        async def autocommit(session: AsyncSession) -> list[dict[str, Any]]:
            return await result_rows(await session.run(timed, params))

        with translated_errors(self._uri, f"the query {name}" if name else ""):
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
        # Translated once the reruns are spent: the rerun looks at the driver's own error.
        async with self._write_turn:
            with translated_errors(self._uri, "a write transaction"):
                for attempt in range(RERUNS + 1):
                    try:
                        return await self._managed(work)
                    except Neo4jError as exc:
                        if exc.code not in RERUN_CODES or attempt == RERUNS:
                            raise
                        pause = random.uniform(0.01, 0.05)  # noqa: S311 (jitter, not a secret)
                        await asyncio.sleep(pause * (attempt + 1))
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
            with contextlib.suppress(_RolledBack), translated_errors(self._uri, "a rehearsal"):
                await self._managed(call)

    async def read(self, query: Query[R], /, **params: Any) -> list[R]:
        text = cypher.load(query.name)
        return typed(query, await self._run(text, params, write=False, name=query.name))

    async def read_within(self, timeout_s: float, query: Query[R], /, **params: Any) -> list[R]:
        """``read`` with its own time limit instead of the store's read timeout."""
        text = cypher.load(query.name)
        rows = await self._run(text, params, write=False, timeout_s=timeout_s, name=query.name)
        return typed(query, rows)

    async def write(self, query: Query[R], /, **params: Any) -> list[R]:
        text = cypher.load(query.name)
        return typed(query, await self._run(text, params, write=True, name=query.name))
