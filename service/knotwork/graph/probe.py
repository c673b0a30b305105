"""The watchdog's probe of Neo4j (graph/liveness.py): a new connection's handshake and login,
on a driver and thread of its own, timed on that thread's clock, with a second thread ticking
to tell the server's silence from the probe's own lag."""

from __future__ import annotations

import concurrent.futures
import contextlib
import enum
import logging
import socket
import threading
from collections.abc import Callable, Iterable
from time import monotonic
from urllib.parse import urlsplit, urlunsplit

from neo4j import Address, GraphDatabase
from neo4j.exceptions import ClientError, Neo4jError

log = logging.getLogger("knotwork.graph.liveness")

THREAD_NAME = "knotwork-liveness-probe"
TICK_S = 0.05  # the probe's clock: how often it checks that its threads get to run
STARVED_S = 0.5  # a tick this late: the probe's own lag, not the server's, may be what it saw
# The driver's words for a time-out before the server's 4-byte Bolt handshake answer (the TCP
# connect, TLS, the handshake's send and read): a frozen or stopped JVM never gets past these.
# A time-out after them (the handshake's next bytes, the login) is a live, loaded server's.
BEFORE_HANDSHAKE = (
    "trying to establish connection",
    "encrypted connection",
    "handshake opening",
    "four byte bolt handshake response",
)


class Verdict(enum.Enum):
    ANSWERS = "answers"
    SILENT = "silent"  # accepted the connection, said nothing within probe_s
    REFUSED = "refused"  # no connection at all: the outage path's to tell, not the watchdog's
    STARVED = "starved"  # the probe's threads did not get to run: it saw its own lag


Probe = concurrent.futures.Future[tuple[Verdict, float]]


def probe_thread(uri: str, auth: tuple[str, str], probe_s: float, result: Probe) -> None:
    """Probe while a clock thread checks that this process's threads get to run: a
    probe whose clock ticked late (a long C call holding the GIL, a swapping machine)
    may have timed its own lag, so it gives no verdict."""
    done = threading.Event()
    late: list[float] = [0.0]

    def clock() -> None:
        last = monotonic()
        while not done.wait(TICK_S):
            now = monotonic()
            late[0], last = max(late[0], now - last - TICK_S), now

    ticking = threading.Thread(target=clock, name=THREAD_NAME, daemon=True)
    ticking.start()
    try:
        answer = _try(uri, auth, probe_s)
    except BaseException as exc:
        answer = Verdict.STARVED
        log.warning("Neo4j's liveness probe failed: %r", exc)
    done.set()
    ticking.join()
    if answer is Verdict.SILENT and late[0] >= STARVED_S:
        log.warning("Neo4j's liveness probe was held %.1f s: no verdict", late[0])
        answer = Verdict.STARVED
    result.set_result((answer, monotonic()))


def _resolver(uri: str) -> Callable[[Address], Iterable[Address]]:
    """The server's addresses, looked up before the probe's time starts (a lost DNS packet is
    not the server's silence); other addresses (a cluster's routers) and TLS, whose check
    needs the host name, are left to the driver's own lookup."""
    parts = urlsplit(uri)
    host, port = parts.hostname, parts.port or 7687
    if "+s" in parts.scheme or not host:
        return lambda address: [address]
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    ours = [Address((str(info[4][0]), port)) for info in found]
    return lambda address: ours if (address.host, address.port) == (host, port) else [address]


def _try(uri: str, auth: tuple[str, str], probe_s: float) -> Verdict:
    """Connect, handshake and log in on a driver of its own (in this thread, on its own
    clock): an error the server sends (a refused login) is an answer, and so is a time-out
    once it answered the Bolt handshake (it is alive, only slow to log in under load); a
    refused connection or a failed lookup is REFUSED; only a time-out waiting for the server
    to answer the handshake within ``probe_s`` is SILENT, never another error merely because
    it came late."""
    driver, uri = None, direct(uri)
    try:
        driver = GraphDatabase.driver(
            uri,
            auth=auth,
            connection_timeout=probe_s,  # the TCP connect
            connection_acquisition_timeout=probe_s,  # the handshake and login
            max_connection_pool_size=1,
            resolver=_resolver(uri),
        )
        driver.verify_connectivity()
        answer = Verdict.ANSWERS
    except ClientError as exc:
        timed_out = "failed to obtain a connection" in str(exc)
        answer = Verdict.SILENT if timed_out else Verdict.ANSWERS
    except Neo4jError:
        answer = Verdict.ANSWERS
    except Exception as exc:  # a refused connection, a bad address, a socket time-out
        if not _timed_out(exc):
            answer = Verdict.REFUSED
        elif _before_handshake(exc):
            answer = Verdict.SILENT
        else:
            answer = Verdict.ANSWERS
            log.info("Neo4j answered the handshake, not the login within %g s", probe_s)
            return answer
        log.warning("Neo4j did not answer a new connection (%s): %r", answer.value, exc)
    finally:
        if driver is not None:
            with contextlib.suppress(Exception):
                driver.close()
    return answer


def direct(uri: str) -> str:
    """``uri`` with a direct scheme (``neo4j+s://h`` as ``bolt+s://h``, its routing context
    left out): a routing driver's failure to get a routing table says no time-out, so a
    frozen server would look refused; only the handshake of that server is judged here."""
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    if not scheme.startswith("neo4j"):
        return uri
    return urlunsplit(parts._replace(scheme="bolt" + scheme[len("neo4j") :], query=""))


def _timed_out(exc: BaseException | None) -> bool:
    """Whether a time-out is in ``exc``'s chain (the driver wraps the socket's)."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, TimeoutError) or "timed out" in str(exc).lower():
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def _before_handshake(exc: BaseException | None) -> bool:
    """Whether the driver's error (or one in its chain) says the server never answered the
    Bolt handshake."""
    seen = 0
    while exc is not None and seen < 10:
        said = str(exc).lower()
        if any(words in said for words in BEFORE_HANDSHAKE):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False
