"""The watchdog's verdicts (graph/liveness.py) on scripted probe results: only two unanswered
probes in a row within one verdict, with no answer since the first, cut a call; a starved
probe, an old silence, or a call ending normally between them do not. The probes' threads are
replaced by a script (no server is asked); the real probe is tested in
tests/integration/test_neo4j_silent.py."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from neo4j import AsyncGraphDatabase

from knotwork.errors import GraphUnavailableError
from knotwork.graph import liveness
from knotwork.graph.liveness import Watchdog, silent_within, waits_for_pool, watch_times
from knotwork.graph.probe import Probe, Verdict

AUTH = ("neo4j", "x" * 8)


class Script:
    """Probe results in order, each after its delay (in a thread, as a real probe's); then
    ANSWERS. ``started`` has each probe's start, relative to the script's creation."""

    def __init__(self, *plan: tuple[float, Verdict]) -> None:
        self.plan = list(plan)
        self.started: list[float] = []
        self.t0 = time.monotonic()

    def __call__(self, uri: str, auth: tuple[str, str], probe_s: float, result: Probe) -> None:
        delay, verdict = self.plan.pop(0) if self.plan else (0.0, Verdict.ANSWERS)
        self.started.append(time.monotonic() - self.t0)

        def answer() -> None:
            time.sleep(delay)
            result.set_result((verdict, time.monotonic()))

        threading.Thread(target=answer, daemon=True).start()


@pytest.fixture
def script(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    def made(*plan: tuple[float, Verdict]) -> Script:
        scripted = Script(*plan)
        monkeypatch.setattr(liveness, "probe_thread", scripted)
        return scripted

    yield made


def watchdog() -> Watchdog:
    return Watchdog("bolt://127.0.0.1:1", AUTH, unavailable_after_s=1.0)  # wait 2 s


def test_a_probe_gets_ten_seconds_at_least_whatever_the_connect_timeout() -> None:
    """A loaded but healthy server took over 3 s (the default connect timeout's double) to
    answer a new connection's handshake and login: a probe gets 10 s at least."""
    assert watch_times(1.5) == (3.0, 10.0)
    assert watch_times(0.5) == (2.0, 10.0)
    assert watch_times(20.0) == (40.0, 40.0)
    assert silent_within(1.5) == 25.0  # as README and .env.example say


async def test_two_unanswered_probes_in_a_row_cut_the_call_with_a_hint_for_a_live_server(
    script: Any,
) -> None:
    script((0.0, Verdict.SILENT), (0.0, Verdict.SILENT))
    dog = watchdog()
    started = time.monotonic()
    try:
        with pytest.raises(GraphUnavailableError) as caught:
            await dog.run(lambda: asyncio.sleep(8, "ran"))
    finally:
        await dog.close()
    assert time.monotonic() - started < 6
    said = str(caught.value)
    assert "accepts connections but does not answer" in said
    assert "debug.log" in said and "restart it" in said
    assert "knotwork neo4j start" not in said  # it is running: starting it is no advice


async def test_a_starved_probe_between_two_silences_confirms_nothing(script: Any) -> None:
    """SILENT, STARVED (the first verdict: no cut), then SILENT: the next verdict needs a
    second silence of its own, and gets an answer."""
    probes = script(
        (0.0, Verdict.SILENT), (0.0, Verdict.STARVED), (0.0, Verdict.SILENT), (0.0, Verdict.ANSWERS)
    )
    dog = watchdog()
    try:
        assert await dog.run(lambda: asyncio.sleep(5, "ran")) == "ran"
    finally:
        await dog.close()
    assert len(probes.started) == 4


async def test_a_silence_left_unread_by_a_call_that_ended_normally_is_not_counted(
    script: Any,
) -> None:
    """Call A's first probe goes unanswered; A then ends normally (the server answered it)
    while its second probe runs, unanswered and left unread. Call B, later, needs two
    unanswered probes of its own: one silence and an answer cut nothing."""
    script(
        (0.0, Verdict.SILENT), (1.5, Verdict.SILENT), (0.0, Verdict.SILENT), (0.0, Verdict.ANSWERS)
    )
    dog = watchdog()
    try:
        assert await dog.run(lambda: asyncio.sleep(2.5, "A")) == "A"
        await asyncio.sleep(2.0)
        assert await dog.run(lambda: asyncio.sleep(4, "B")) == "B"
    finally:
        await dog.close()


async def test_a_call_ending_normally_between_two_silences_confirms_nothing(
    script: Any,
) -> None:
    """A long call's probes both go unanswered, but a short call ends normally between
    them: the server answered, so the long call runs on."""
    script((0.0, Verdict.SILENT), (1.5, Verdict.SILENT))
    dog = watchdog()

    async def short() -> str:
        await asyncio.sleep(0.6)
        return await dog.run(lambda: asyncio.sleep(1.9, "short"))

    try:
        ended = await asyncio.gather(dog.run(lambda: asyncio.sleep(5, "long")), short())
    finally:
        await dog.close()
    assert ended == ["long", "short"]


async def test_a_silence_older_than_a_probe_s_time_is_not_counted(
    script: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Call A is cancelled (no answer) while its second probe runs, unanswered and left
    unread. Call B comes after more than a probe's time: that old silence is not its first."""
    monkeypatch.setattr(liveness, "PROBE_FLOOR_S", 2.0)  # a probe's time: 2 s
    script(
        (0.0, Verdict.SILENT), (1.0, Verdict.SILENT), (0.0, Verdict.SILENT), (0.0, Verdict.ANSWERS)
    )
    dog = watchdog()
    assert dog.probe_s == 2.0
    try:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(dog.run(lambda: asyncio.sleep(9, "A")), 2.5)
        await asyncio.sleep(3.0)
        assert await dog.run(lambda: asyncio.sleep(3, "B")) == "B"
    finally:
        await dog.close()


async def test_a_pool_that_cannot_be_read_never_cuts_a_call(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the driver internals waits_for_pool reads, a call is taken as waiting for the
    pool (never cut), and that is logged once."""
    driver = AsyncGraphDatabase.driver("bolt://127.0.0.1:1", auth=AUTH)
    monkeypatch.setattr(liveness, "_internals_missing", [], raising=False)  # not warned
    try:
        session = driver.session()  # no connection before a query
        with caplog.at_level(logging.WARNING, logger="knotwork.graph.liveness"):
            assert waits_for_pool(object(), session) is True
            assert waits_for_pool(driver, object()) is True  # a session without _connection
        assert waits_for_pool(driver, session) is False  # readable: an empty pool
        await session.close()
    finally:
        await driver.close()
    warned = [r for r in caplog.records if "pool cannot be read" in r.getMessage()]
    assert len(warned) == 1
