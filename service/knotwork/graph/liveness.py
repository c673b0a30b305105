"""Tells a Neo4j that does not answer from one that is working long.

A server that accepts connections but never answers (a frozen JVM, a stalled network path)
leaves a read on a pooled connection waiting forever: the driver bounds the TCP connect and
the wait for a connection (handshake and login included), never a read, but by the socket
timeout a server may hint at login (``connection.recv_timeout_seconds``, sent or not).
Cutting every call at a fixed time would cut a first sync's write transactions, which
legitimately run for many seconds. So a call still running after ``wait_s`` makes the
watchdog ask the server on a NEW connection, from a thread of its own with the sync driver:
the event loop the calls run on may be held by CPU work (thousands of gathered reads, a slow
callback), and a probe timed on that loop would take its own lag for the server's silence.
An answer within ``probe_s`` lets the call run on (asked again every ``wait_s``); a
server whose Bolt handshake answered is alive, however long its login then takes (a loaded
server's is slow). One unanswered probe proves little (a JVM's GC pause, a lost DNS packet, a
thread kept off the GIL by a long C call), so a second is sent at once, and only two in a row
in one verdict, the second started after the first ended, with no answer since the first
started (a probe's, or any call ending normally), cancel the call (``GraphUnavailableError``).
A probe that shows its thread was starved, or one whose connection is refused (a server down
or restarting: the call's own connection fails, and the runner's outage path says so), is no
verdict, and a silence older than ``probe_s`` is not counted. A call that waits for a pooled
connection (the pool full: GraphBusyError in time) is never cut. Cancelling is safe for the
pool: the driver kills (never returns) a connection whose I/O was cancelled
(neo4j-python-driver PR #761)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Awaitable, Callable
from time import monotonic
from typing import Any, NamedTuple, TypeVar

from knotwork.errors import GraphUnavailableError
from knotwork.graph.probe import THREAD_NAME, Probe, Verdict, probe_thread
from knotwork.redact import redact

log = logging.getLogger(__name__)

T = TypeVar("T")
__all__ = ["THREAD_NAME", "Verdict", "Watchdog", "silent_within", "waits_for_pool", "watch_times"]
SLACK_S = 1.0  # a probe thread's start and its driver's close, on a busy machine
CONFIRMING = 2  # unanswered probes in a row that make a server silent
# A probe's least time: a healthy server under load took over 3 s for a new connection's
# handshake and login, and was taken for silent when the probe had the connect timeout's 3 s.
PROBE_FLOOR_S = 10.0
NEVER = float("-inf")


def watch_times(unavailable_after_s: float) -> tuple[float, float]:
    """(wait before the first probe, a probe's time to answer) for a server given
    ``unavailable_after_s`` to connect: the wait is twice that, at least 2 s; a probe gets as
    long, at least ``PROBE_FLOOR_S``, so a loaded server's slow handshake is not silence."""
    wait = max(2.0, 2 * unavailable_after_s)
    return wait, max(PROBE_FLOOR_S, wait)


def silent_within(unavailable_after_s: float) -> float:
    """How long a call on a Neo4j that does not answer runs before it is stopped, at most:
    the wait before its probe, then two probes in a row, each with its thread's slack (25 s
    at the default 1.5 s). A server freezing during a call answered a probe up to ``wait_s``
    before: add ``wait_s`` at most for that call."""
    wait, probe = watch_times(unavailable_after_s)
    return wait + CONFIRMING * (probe + SLACK_S)


def silence_hint(uri: str) -> str:
    """What to look at when Neo4j accepts connections but does not answer: it is running."""
    where = f"; KNOTWORK_NEO4J_URI is {redact(uri)}" if uri else ""
    return (
        "check the server's CPU load and memory (long garbage-collection pauses are logged "
        f"in its logs/debug.log), or restart it{where}"
    )


_internals_missing: list[bool] = []  # warned once: the driver no longer has what is read


def waits_for_pool(driver: Any, session: Any) -> bool:
    """Whether ``session`` holds no connection while ``driver``'s pool is full, every
    connection in it in use: its call waits for a pooled connection (GraphBusyError once the
    acquisition time ends), which says nothing of the server. A slot reserved for a connection
    being opened is not counted: that call may be in a handshake with a silent server. Reads
    the 5.x driver's internals (tests/unit/test_liveness_driver.py checks they are there);
    without them it says True: a busy pool's call is never cut, a silent server's then waits
    for the driver's own time-outs."""
    if session is None:
        return False
    try:
        if session._connection is not None:
            return False
        pool: Any = driver._pool
        size = pool.pool_config.max_connection_pool_size
        with pool.lock:
            return any(
                len(held) >= size and all(connection.in_use for connection in held)
                for held in pool.connections.values()
            )
    except (AttributeError, TypeError) as exc:
        if not _internals_missing:
            _internals_missing.append(True)
            log.warning("the neo4j driver's pool cannot be read (%r): no call is cut", exc)
        return True


class _Seen(NamedTuple):
    """A probe's verdict for one verdict of the watchdog, and when that probe started and ended."""

    verdict: Verdict
    started: float
    ended: float


class _Watch:
    """One call's watch: its bound (expired when the server is silent), timer and probe."""

    def __init__(self, bound: asyncio.Timeout, waiting: Callable[[], bool]) -> None:
        self.bound = bound
        self.waiting = waiting
        self.timer: asyncio.TimerHandle | None = None
        self.judging: asyncio.Task[None] | None = None
        self.silent = False

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if self.judging is not None:
            self.judging.cancel()


class Watchdog:
    """Runs database calls under the watch described above; concurrent slow calls share one
    probe (one at a time), and an answer is trusted for ``wait_s``. ``close()`` stops the
    watches and waits a little for a probe under way."""

    def __init__(self, uri: str, auth: tuple[str, str], *, unavailable_after_s: float) -> None:
        self._uri = uri
        self._auth = auth
        self.wait_s, self.probe_s = watch_times(unavailable_after_s)
        self._answered_at = NEVER  # the latest answer: a probe's, or a call ending normally
        self._silent_at = NEVER  # when silence was confirmed, no answer since
        self._probe: Probe | None = None  # the latest probe (its thread keeps the time)
        self._started = NEVER  # when the latest probe was started
        self._taken: Probe | None = None  # the latest probe whose verdict was counted
        self._watches: set[_Watch] = set()
        self._closed = False

    async def run(
        self, call: Callable[[], Awaitable[T]], waiting: Callable[[], bool] = lambda: False
    ) -> T:
        """``call()``'s result; GraphUnavailableError if the server stopped answering meanwhile.
        ``waiting()`` says the call waits for a pooled connection: it is then left alone.
        No task is started for a call that ends within ``wait_s`` (reads are many and small):
        the call runs in the caller's task under an ``asyncio.timeout`` the probe can expire.
        A call ending normally is an answer of the server's: it clears any silence seen.
        Once silence was confirmed, calls in the next ``probe_s`` fail at once (a request's
        next calls, a write's way to the journal) and later ones are probed at their start,
        until the server answers."""
        if self._closed:
            return await call()
        silent_for = monotonic() - self._silent_at
        if silent_for < self.probe_s:
            raise self._silent(f"checks {silent_for:.1f} s ago got no answer within")
        loop = asyncio.get_running_loop()
        first = 0.0 if self._silent_at > NEVER else self.wait_s
        watch: _Watch | None = None
        try:
            async with asyncio.timeout(None) as bound:
                watch = _Watch(bound, waiting)
                self._watches.add(watch)
                watch.timer = loop.call_later(first, self._judge, watch)
                result = await call()
            self._answered(monotonic())
            return result
        except TimeoutError:
            if watch is None or not watch.silent:
                raise
            raise self._silent(
                "a call was stopped: two checks on new connections got no answer within"
            ) from None
        finally:
            if watch is not None:
                watch.stop()
                self._watches.discard(watch)

    def _silent(self, what: str) -> GraphUnavailableError:
        hint = f"(a frozen or overloaded server, or a stalled network); {silence_hint(self._uri)}"
        return GraphUnavailableError(
            f"Neo4j accepts connections but does not answer: {what} {self.probe_s:g} s {hint}"
        )

    def _answered(self, at: float) -> None:
        self._answered_at = max(self._answered_at, at)
        self._silent_at = NEVER

    def _judge(self, watch: _Watch) -> None:
        watch.timer = None
        if not self._closed:
            watch.judging = asyncio.get_running_loop().create_task(self._verdict(watch))

    async def _verdict(self, watch: _Watch) -> None:
        """The call is cut if the server is silent (``_confirmed``) and the call is not
        waiting for a pooled connection, else it runs on and is judged again in ``wait_s``."""
        loop = asyncio.get_running_loop()
        verdict = await self._confirmed()
        watch.judging = None
        if self._closed:
            return
        if verdict is Verdict.SILENT and not watch.waiting() and not watch.bound.expired():
            watch.silent = True
            watch.bound.reschedule(loop.time())
        else:
            log.debug("Neo4j %s: a call past %g s runs on", verdict.value, self.wait_s)
            watch.timer = loop.call_later(self.wait_s, self._judge, watch)

    async def _confirmed(self) -> Verdict:
        """SILENT for two unanswered probes in a row, the second started after the first
        ended, with no answer since the first started; once that was confirmed (and nothing
        answered since), one fresh unanswered probe is enough. Any other verdict (an answer,
        a starved probe, a refused connection) starts the count again at the next verdict."""
        first = await self._probed(after=NEVER)
        if first.verdict is not Verdict.SILENT or self._silent_at > NEVER:
            return first.verdict
        second = await self._probed(after=first.ended)
        if second.verdict is not Verdict.SILENT:
            return second.verdict
        if first.started <= self._answered_at:  # a call ended normally between the probes
            return Verdict.ANSWERS
        self._silent_at = max(self._silent_at, second.ended)
        return Verdict.SILENT

    async def _probed(self, after: float) -> _Seen:
        """A probe's verdict on whether Neo4j answers a new connection within ``probe_s``
        (trusted for ``wait_s`` once it did): the latest probe's if it was unanswered, ended
        after ``after`` and at most ``probe_s`` ago, else the one under way (shared), else a
        new one's. SILENT only if nothing answered since the probe started. Its thread keeps
        its own time, so a held event loop delays the verdict but never makes it."""
        probe, started = self._probe, self._started
        fresh: _Seen | None = None
        if probe is not None and probe.done():
            verdict, ended = self._take(probe)  # it may be an answer this loop did not read
            if verdict is Verdict.SILENT and ended > after and monotonic() - ended <= self.probe_s:
                seen = self._checked(verdict, started, ended)
                fresh = seen if seen.verdict is Verdict.SILENT else None  # else probe anew
        if monotonic() - self._answered_at < self.wait_s:
            return _Seen(Verdict.ANSWERS, started, monotonic())
        if fresh is not None:
            return fresh
        if probe is None or probe.done():
            if self._closed:
                return _Seen(Verdict.STARVED, started, monotonic())  # no probe after close
            probe = self._probe = concurrent.futures.Future()
            started = self._started = monotonic()
            args = (self._uri, self._auth, self.probe_s, probe)
            threading.Thread(target=probe_thread, args=args, name=THREAD_NAME, daemon=True).start()
        # The thread is bounded by the driver's timeouts; one not done by then was starved.
        await asyncio.wait([asyncio.wrap_future(probe)], timeout=self.probe_s + 5 * SLACK_S)
        if not probe.done():
            return _Seen(Verdict.STARVED, started, monotonic())
        verdict, ended = self._take(probe)
        return self._checked(verdict, started, ended)

    def _checked(self, verdict: Verdict, started: float, ended: float) -> _Seen:
        """A silence contradicted by an answer since the probe started (a call ended) is none."""
        if verdict is Verdict.SILENT and started <= self._answered_at:
            verdict = Verdict.ANSWERS
        return _Seen(verdict, started, ended)

    def _take(self, probe: Probe) -> tuple[Verdict, float]:
        """``probe``'s verdict and end, counted once (the first waiter to resume)."""
        verdict, at = probe.result()
        if probe is not self._taken:
            self._taken = probe
            if verdict is Verdict.ANSWERS:
                self._answered(at)
            elif verdict is Verdict.REFUSED:  # down or restarting: the calls say the outage
                self._silent_at = NEVER
        return verdict, at

    async def close(self) -> None:
        """Stop watching (no probe starts after this) and wait a second at most for a probe
        under way: its daemon thread ends on its own within ``probe_s``, and a shutdown
        should not wait that long on a frozen server."""
        self._closed = True
        for watch in list(self._watches):
            watch.stop()
        probe = self._probe
        if probe is not None and not probe.done():
            await asyncio.wait([asyncio.wrap_future(probe)], timeout=SLACK_S)
