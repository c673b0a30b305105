"""A Neo4j that accepts connections but does not answer (a frozen server, a stalled network):
reads and writes through the Core, REST and MCP fail with a clear error within seconds, writes
are journaled, everything works again once it answers; a long call on a server that answers is
never cut, nor by a held event loop or GIL, nor by one probe answered late, nor while it waits
for a pooled connection, nor when the server refuses connections (the outage path's to say).
The freeze is a proxy's (``TcpProxy.freeze``): the shared server is untouched."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from mcp import Client
from neo4j import AsyncGraphDatabase
from pydantic import SecretStr

from knotwork.api import create_app
from knotwork.core import Core, open_core
from knotwork.errors import GraphBusyError, GraphUnavailableError
from knotwork.graph.liveness import THREAD_NAME, Verdict, Watchdog, silent_within, watch_times
from knotwork.graph.probe import Probe, direct, probe_thread
from knotwork.graph.store import GraphStore
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.journal import Journal, journal_file
from knotwork.ingest.sync import sync_vault
from knotwork.mcp.server import create_mcp_server
from knotwork.retrieve import retrieve
from knotwork.settings import Settings
from tests.integration.conftest import Neo4jTarget, put
from tests.integration.server import TcpProxy, free_port, serving
from tests.integration.test_mcp import text_of

T = TypeVar("T")
KEY = "s" * 24
UNAVAILABLE_AFTER_S = 0.5
# A frozen server is said within the watchdog's wait and two probes with their threads' slack
# (24 s at 0.5 s), and a request's own work on a loaded machine.
BOUND_S = silent_within(UNAVAILABLE_AFTER_S) + 3.0
WARM_S = 120.0  # a first write on a loaded machine (schema, indexes) took 24-29 s
ALICE = "# Alice\n\nAlice works with Bob on the graph database.\n"


async def once_it_answers(call: Callable[[], Awaitable[T]]) -> T:
    """``call()`` once it succeeds: the watchdog fails calls at once for a couple of seconds
    after a check went unanswered, then probes the next one."""
    deadline = time.monotonic() + BOUND_S
    while True:
        try:
            return await call()
        except GraphUnavailableError:
            assert time.monotonic() < deadline, "Neo4j still said silent after it answered"
            await asyncio.sleep(0.2)


def proxied(settings: Settings, proxy: TcpProxy, **extra: object) -> Settings:
    update = {
        "neo4j_uri": f"bolt://127.0.0.1:{proxy.port}",
        "neo4j_unavailable_after_s": UNAVAILABLE_AFTER_S,
        **extra,
    }
    return settings.model_copy(update=update)


@pytest.fixture
async def through(
    core: Core, settings: Settings, vault: Path, proxy: TcpProxy
) -> AsyncIterator[Core]:
    """A core through the proxy over a synced vault "t" of one note."""
    put(vault, "Alice.md", ALICE)
    await sync_vault(Ingestor(core, root=vault, vault="t", extract_enabled=False))
    async with open_core(proxied(settings, proxy)) as opened:
        yield opened
    proxy.thaw()


async def test_a_retrieval_from_a_frozen_neo4j_fails_clearly_and_works_once_it_answers(
    through: Core, proxy: TcpProxy
) -> None:
    question = "Who works on the graph database?"
    assert (await retrieve(through, "t", question)).hits[0].path == "Alice.md"  # pooled
    proxy.freeze()
    started = time.monotonic()
    with pytest.raises(GraphUnavailableError, match="accepts connections but does not answer"):
        async with asyncio.timeout(BOUND_S):  # past it: TimeoutError, the test fails
            await retrieve(through, "t", question)
    assert time.monotonic() - started <= BOUND_S
    proxy.thaw()  # the cut connections were discarded: a later call finds a live one
    evidence = await once_it_answers(lambda: retrieve(through, "t", question))
    assert evidence.hits[0].path == "Alice.md"


async def test_a_first_call_to_a_frozen_neo4j_fails_within_the_bound(
    settings: Settings, empty_db: Neo4jTarget, proxy: TcpProxy
) -> None:
    """No pooled connection yet: the new one's handshake is what goes unanswered."""
    proxy.freeze()
    async with open_core(proxied(settings, proxy)) as frozen:
        started = time.monotonic()
        with pytest.raises(GraphUnavailableError, match="does not answer"):
            async with asyncio.timeout(BOUND_S):
                await frozen.store.chunk_count()
        assert time.monotonic() - started <= silent_within(UNAVAILABLE_AFTER_S)  # as said
        proxy.thaw()
        assert await once_it_answers(frozen.store.chunk_count) == 0


async def rewrite_manifest(store: GraphStore, manifest: dict[str, Any]) -> dict[str, Any]:
    """The manifest written again as it is: a write that waits on a lock held on it."""
    return await store.put_manifest(
        schema_version=manifest["schema_version"],
        embed_model=manifest["embed_model"],
        embed_provider=manifest["embed_provider"],
        embed_dimension=manifest["embed_dimension"],
        knotwork_version=manifest["knotwork_version"],
    )


async def test_a_long_call_on_a_neo4j_that_answers_is_not_cut(through: Core, core: Core) -> None:
    """A write waiting on a lock another transaction holds for several of the watchdog's
    periods: the server answers the probes, so the write waits on and completes."""
    wait_s, _ = watch_times(UNAVAILABLE_AFTER_S)
    held_s = 3 * wait_s + 1.0  # judged three times: the probes are answered at once
    manifest = await through.store.get_manifest()
    assert manifest is not None
    async with core.driver.session(database=core.settings.neo4j_database) as session:
        holder = await session.begin_transaction()
        await holder.run("MATCH (m:Manifest {key: 'knotwork'}) SET m.held = true")
        started = time.monotonic()
        waiting = asyncio.create_task(rewrite_manifest(through.store, manifest))
        await asyncio.sleep(held_s)
        assert not waiting.done()  # still waiting on the lock, not cut
        await holder.rollback()
    written = await asyncio.wait_for(waiting, 30)
    assert written["embed_model"] == manifest["embed_model"]
    assert time.monotonic() - started >= held_s


async def test_a_held_event_loop_does_not_make_a_long_call_look_frozen(
    through: Core, core: Core, proxy: TcpProxy
) -> None:
    """A callback holds the event loop past a probe's time each time the watchdog's probe
    connects, during a long call waiting on a lock: the probe runs on a thread of its own and
    clock, the server answers it, so the call is not cut (a probe timed on the held loop took
    the loop's lag for the server's silence)."""
    wait_s, probe_s = watch_times(UNAVAILABLE_AFTER_S)
    held_s = probe_s + 1.0
    manifest = await through.store.get_manifest()  # pooled: the call needs no new connection
    assert manifest is not None
    loop = asyncio.get_running_loop()
    async with core.driver.session(database=core.settings.neo4j_database) as session:
        holder = await session.begin_transaction()
        await holder.run("MATCH (m:Manifest {key: 'knotwork'}) SET m.held = true")
        waiting = asyncio.create_task(rewrite_manifest(through.store, manifest))
        proxy.on_connect = lambda: loop.call_soon_threadsafe(time.sleep, held_s)
        try:
            await asyncio.sleep(wait_s + 2 * (held_s + wait_s))  # two probes' tries, held
        finally:
            proxy.on_connect = None
        assert not waiting.done()  # still waiting on the lock: not cut
        await holder.rollback()
    written = await asyncio.wait_for(waiting, 30)
    assert written["embed_model"] == manifest["embed_model"]


async def test_a_call_waiting_for_a_pooled_connection_is_not_taken_for_silence(
    settings: Settings, empty_db: Neo4jTarget, proxy: TcpProxy
) -> None:
    """The pool's one connection is held and the watchdog's probe goes unanswered (it asks a
    frozen proxy): the call waiting for a connection ends as a busy pool's, GraphBusyError
    once the acquisition time is over, not as a silent server's."""
    acquire_s = 2 * silent_within(UNAVAILABLE_AFTER_S)  # past the time a silent call is cut
    auth = (settings.neo4j_user, settings.password())
    driver = AsyncGraphDatabase.driver(
        settings.neo4j_uri,
        auth=auth,
        max_connection_pool_size=1,
        connection_acquisition_timeout=acquire_s,
    )
    watchdog = Watchdog(
        f"bolt://127.0.0.1:{proxy.port}", auth, unavailable_after_s=UNAVAILABLE_AFTER_S
    )
    store = GraphStore(driver, settings.neo4j_database, watchdog=watchdog)
    proxy.freeze()
    try:
        async with driver.session(database=settings.neo4j_database) as session:
            holder = await session.begin_transaction()  # the pool's one connection
            await holder.run("RETURN 1")
            with pytest.raises(GraphBusyError, match="every connection to Neo4j is in use"):
                await store.chunk_count()
            await holder.rollback()
    finally:
        proxy.thaw()
        await watchdog.close()
        await driver.close()


async def test_calls_filling_the_pool_with_new_connections_to_a_frozen_neo4j_are_cut(
    settings: Settings, empty_db: Neo4jTarget, proxy: TcpProxy
) -> None:
    """As many calls as the pool holds, each opening its connection to a frozen server: a
    pool slot reserved for a connection in its handshake is not a full pool, so the calls
    are cut within the bound (they waited 30 s and ended "not reachable")."""
    uri = f"bolt://127.0.0.1:{proxy.port}"
    auth = (settings.neo4j_user, settings.password())
    driver = AsyncGraphDatabase.driver(
        uri,
        auth=auth,
        max_connection_pool_size=2,
        connection_timeout=UNAVAILABLE_AFTER_S,
        connection_acquisition_timeout=30.0,
    )
    watchdog = Watchdog(uri, auth, unavailable_after_s=UNAVAILABLE_AFTER_S)
    store = GraphStore(
        driver,
        settings.neo4j_database,
        unavailable_after_s=UNAVAILABLE_AFTER_S,
        uri=uri,
        watchdog=watchdog,
    )
    proxy.freeze()
    try:
        async with asyncio.timeout(BOUND_S):  # past it: TimeoutError, the test fails
            ended = await asyncio.gather(
                store.chunk_count(), store.chunk_count(), return_exceptions=True
            )
        assert all(
            isinstance(end, GraphUnavailableError) and "does not answer" in str(end)
            for end in ended
        ), ended
    finally:
        proxy.thaw()
        await watchdog.close()
        await driver.close()


async def test_a_probe_kept_off_the_gil_does_not_cut_a_long_call(settings: Settings) -> None:
    """A C call on the event loop's thread holds the GIL longer than a probe's time while the
    probe runs, during a long call on a server that answers: the probe's clock shows it was
    held, so it gives no verdict and the call is not cut (nor the next one failed)."""
    wait_s, probe_s = watch_times(UNAVAILABLE_AFTER_S)
    auth = (settings.neo4j_user, settings.password())
    watchdog = Watchdog(settings.neo4j_uri, auth, unavailable_after_s=UNAVAILABLE_AFTER_S)
    sample, took = 2_000_000, []
    for _ in range(3):  # the fastest of three: a busy machine's slow sample would hold too little
        timed = time.monotonic()
        sum(range(sample))
        took.append(time.monotonic() - timed)
    per_item = max(min(took), 1e-6) / sample
    items = int(2 * (probe_s + 1.5) / per_item)  # held past the probe's time, load or not

    async def hold_the_gil() -> float:
        deadline = time.monotonic() + wait_s + 5.0
        while not probing():
            assert time.monotonic() < deadline, "no probe started"
            await asyncio.sleep(0.001)
        held = time.monotonic()
        sum(range(items))  # one C call: the GIL is never released meanwhile
        return time.monotonic() - held

    holding = asyncio.create_task(hold_the_gil())
    try:
        long_s = silent_within(UNAVAILABLE_AFTER_S) + probe_s + 3.0
        assert await watchdog.run(lambda: asyncio.sleep(long_s, "ran")) == "ran"
        assert await holding >= probe_s  # the GIL was held as meant
        assert await watchdog.run(lambda: asyncio.sleep(0, "next")) == "next"
    finally:
        await watchdog.close()


async def test_one_late_probe_then_an_answered_one_cuts_nothing(
    settings: Settings, proxy: TcpProxy
) -> None:
    """The first probe's handshake goes unanswered past a probe's time (a GC pause, a lost
    packet), the next is answered: one silence is not confirmed, so the long call running
    meanwhile is not cut, nor the next call failed."""
    _, probe_s = watch_times(UNAVAILABLE_AFTER_S)
    connects: list[float] = []

    def stall_the_first() -> None:  # in the proxy's thread: nothing is forwarded meanwhile
        connects.append(time.monotonic())
        if len(connects) == 1:
            time.sleep(probe_s + 0.5)

    watchdog = Watchdog(
        f"bolt://127.0.0.1:{proxy.port}",
        (settings.neo4j_user, settings.password()),
        unavailable_after_s=UNAVAILABLE_AFTER_S,
    )
    proxy.on_connect = stall_the_first
    try:
        long_s = silent_within(UNAVAILABLE_AFTER_S) + 1.0
        assert await watchdog.run(lambda: asyncio.sleep(long_s, "ran")) == "ran"
        assert len(connects) >= 2  # a second probe was asked, and answered
        assert await watchdog.run(lambda: asyncio.sleep(0, "next")) == "next"
    finally:
        proxy.on_connect = None
        await watchdog.close()


def _probed(uri: str, settings: Settings) -> Verdict:
    """One probe's verdict on ``uri``, given a second to answer."""
    result: Probe = concurrent.futures.Future()
    probe_thread(uri, (settings.neo4j_user, settings.password()), 1.0, result)
    return result.result()[0]


def _silent_while_frozen(uri: str, settings: Settings, proxy: TcpProxy) -> None:
    """``uri`` (through ``proxy``) is silent while the proxy is frozen, answers once thawed."""
    proxy.freeze()
    try:
        assert _probed(uri, settings) is Verdict.SILENT
    finally:
        proxy.thaw()
    assert _probed(uri, settings) is Verdict.ANSWERS


def test_a_server_that_answers_the_handshake_but_logs_in_late_is_alive(
    settings: Settings, proxy: TcpProxy
) -> None:
    """A loaded server answered a probe's Bolt handshake but not its login within the probe's
    time: it is alive (a frozen server never answers the handshake), so the probe says it
    answers, where a frozen one's unanswered handshake is a silence."""
    uri = f"bolt://127.0.0.1:{proxy.port}"
    proxy.replies_held_after = 4  # the handshake's answer, then nothing: the login waits
    try:
        assert _probed(uri, settings) is Verdict.ANSWERS
    finally:
        proxy.replies_held_after = None
    _silent_while_frozen(uri, settings, proxy)


def test_a_routing_uri_to_a_frozen_neo4j_is_judged_by_its_handshake(
    settings: Settings, proxy: TcpProxy
) -> None:
    """neo4j:// (a cluster, Aura) is probed as bolt:// at the same address: the routing
    driver's "unable to retrieve routing information" says no time-out, so a frozen server
    was judged refused, and its calls were never cut."""
    uri = f"neo4j://127.0.0.1:{proxy.port}?policy=eu"
    assert direct(uri) == f"bolt://127.0.0.1:{proxy.port}"
    assert direct("NEO4J+S://h.example:7687") == "bolt+s://h.example:7687"

    _silent_while_frozen(uri, settings, proxy)


async def test_a_refused_probe_is_left_to_the_outage_path() -> None:
    """A server that refuses connections is down or restarting, not silent: the probe's
    refusal neither cuts a running call nor fails the next one at once with "does not
    answer" (a call's own refused connection says "not reachable", retried meanwhile)."""
    wait_s, probe_s = watch_times(UNAVAILABLE_AFTER_S)
    watchdog = Watchdog(
        f"bolt://127.0.0.1:{free_port()}",
        ("neo4j", "x" * 8),
        unavailable_after_s=UNAVAILABLE_AFTER_S,
    )
    try:
        assert await watchdog.run(lambda: asyncio.sleep(wait_s + probe_s + 1, "ran")) == "ran"
        assert await watchdog.run(lambda: asyncio.sleep(0, "next")) == "next"
    finally:
        await watchdog.close()


def probing() -> bool:
    return any(thread.name == THREAD_NAME for thread in threading.enumerate())


async def test_closing_the_core_is_quick_and_leaves_no_probe_behind(
    settings: Settings, empty_db: Neo4jTarget, proxy: TcpProxy
) -> None:
    """A core closed while a probe waits on a frozen server: closing takes about a second,
    not the probe's time (10 s), and the probe (nor its driver) outlives it by its own
    time at most."""
    unavailable_after_s = 1.5  # the default: a probe's time is 10 s
    _, probe_s = watch_times(unavailable_after_s)
    proxy.freeze()
    try:
        served = proxied(settings, proxy, neo4j_unavailable_after_s=unavailable_after_s)
        async with open_core(served) as frozen:
            call = asyncio.create_task(frozen.store.chunk_count())
            deadline = time.monotonic() + BOUND_S
            while not probing():
                assert time.monotonic() < deadline, "no probe started"
                await asyncio.sleep(0.05)
            call.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await call
            closing = time.monotonic()
        closed = time.monotonic()
        assert closed - closing <= 2.0  # a second for the probe, then the driver's own close
        while probing():
            assert time.monotonic() < closed + probe_s + 2.0, "the probe outlived its time"
            await asyncio.sleep(0.05)
    finally:
        proxy.thaw()


async def test_no_probe_starts_after_the_watchdog_is_closed(
    settings: Settings, proxy: TcpProxy
) -> None:
    """A long call still running when the watchdog closes: its watch is stopped, so no
    probe connects after ``close()`` and the call runs to its end."""
    wait_s, _ = watch_times(UNAVAILABLE_AFTER_S)
    started: list[float] = []
    proxy.on_connect = lambda: started.append(time.monotonic())
    watchdog = Watchdog(
        f"bolt://127.0.0.1:{proxy.port}",
        (settings.neo4j_user, settings.password()),
        unavailable_after_s=UNAVAILABLE_AFTER_S,
    )
    try:
        call = asyncio.create_task(watchdog.run(lambda: asyncio.sleep(3 * wait_s, "ran")))
        await asyncio.sleep(0.2)
        await watchdog.close()
        closed = time.monotonic()
        assert await call == "ran"
        assert not [at for at in started if at >= closed], "a probe started after close()"
    finally:
        proxy.on_connect = None


def test_rest_against_a_frozen_neo4j_answers_503_within_seconds_and_journals_writes(
    settings: Settings, vault: Path, tmp_path: Path, empty_db: Neo4jTarget, proxy: TcpProxy
) -> None:
    port = free_port()
    served = proxied(
        settings,
        proxy,
        api_port=port,  # its Host header allowed
        vault_path=vault,
        api_key=SecretStr(KEY),
        extract=False,
        state_dir=tmp_path / "state",
    )
    headers = {"X-API-Key": KEY, "Content-Type": "text/markdown"}
    with (
        serving(create_app(served), port) as base,
        httpx.Client(base_url=base, headers=headers, timeout=BOUND_S) as client,
    ):
        assert client.put("/notes/Old.md", content="# Old\n", timeout=WARM_S).status_code == 200
        assert client.get("/stats", timeout=WARM_S).status_code == 200
        proxy.freeze()
        try:  # an answer later than BOUND_S is httpx's ReadTimeout
            stats = client.get("/stats")
            assert stats.status_code == 503 and stats.headers["Retry-After"], stats.text
            assert "does not answer" in stats.json()["detail"]

            written = client.put("/notes/New.md", content="# New\n\nWritten while frozen.\n")
            assert written.status_code == 503, written.text
            assert written.json()["status"] == "journaled", written.text
            assert (vault / "New.md").read_text() == "# New\n\nWritten while frozen.\n"
            assert "New.md" in Journal(journal_file(served)).paths()
        finally:
            proxy.thaw()
        deadline = time.monotonic() + 60  # the journal's replay brings the graph in step
        while client.get("/notes/New.md").status_code != 200:
            assert time.monotonic() < deadline, "the journaled write was not replayed"
            time.sleep(0.5)


async def test_the_mcp_server_starts_within_seconds_against_a_frozen_neo4j(
    settings: Settings, vault: Path, empty_db: Neo4jTarget, proxy: TcpProxy
) -> None:
    served = proxied(settings, proxy, vault_path=vault, extract=False)
    proxy.freeze()
    started = time.monotonic()
    async with Client(create_mcp_server(served)) as client:  # initialize waits for the start
        assert time.monotonic() - started <= BOUND_S
        async with asyncio.timeout(BOUND_S):
            down = await client.call_tool("stats", {})
        assert down.is_error and "does not answer" in text_of(down), text_of(down)
        proxy.thaw()
        deadline = time.monotonic() + 60  # the start is tried again by a later call
        while (up := await client.call_tool("stats", {})).is_error:
            assert time.monotonic() < deadline, text_of(up)
            await asyncio.sleep(0.5)
