"""The neo4j driver internals ``waits_for_pool`` reads (graph/liveness.py), exactly those: it
says "waiting for the pool" (never cut) without them, so a driver upgrade that renames them
would silently keep the watchdog from cutting calls on a silent server. This fails loudly
instead."""

from __future__ import annotations

from neo4j import AsyncGraphDatabase
from neo4j._async.io import AsyncBolt


async def test_the_driver_still_has_what_the_pool_check_reads() -> None:
    driver = AsyncGraphDatabase.driver("bolt://127.0.0.1:1", auth=("neo4j", "x" * 8))
    try:
        session = driver.session()  # no connection is made before a query
        assert session._connection is None
        await session.close()
        pool = driver._pool
        assert isinstance(pool.pool_config.max_connection_pool_size, int)
        with pool.lock:
            assert dict(pool.connections) == {}  # address -> the connections held for it
        assert AsyncBolt.in_use is False  # each connection's flag, False until acquired
    finally:
        await driver.close()
