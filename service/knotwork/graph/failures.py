"""How the driver's failures reach callers: Neo4j down → GraphUnavailableError with a hint,
refusing the credentials (or locking the login after repeated refusals) → GraphAuthError, pool
exhausted → GraphBusyError, past a time limit → QueryTimeoutError, a transient error left
after the retries → GraphTransientError (wait and try again), any other error of the server →
GraphQueryError (the work fails). No ``neo4j.exceptions.Neo4jError`` goes past the runner, so
no caller outside graph/ decides for itself what is worth retrying."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable, SessionExpired

from knotwork.errors import (
    GraphAuthError,
    GraphBusyError,
    GraphQueryError,
    GraphTransientError,
    GraphUnavailableError,
    QueryTimeoutError,
)
from knotwork.redact import redact

# A transaction past its time limit: the client's (a read's timeout) or the server's own.
TIMED_OUT = frozenset(
    {
        "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
        "Neo.ClientError.Transaction.TransactionTimedOut",
    }
)
# Neo4j's answer to a login after several wrong passwords in a row (3 by default): the driver
# raises it as a plain ClientError, not an AuthError, for the seconds the lock lasts.
RATE_LIMITED = "Neo.ClientError.Security.AuthenticationRateLimit"
CHECK_CREDENTIALS = "Check KNOTWORK_NEO4J_USER and KNOTWORK_NEO4J_PASSWORD."
SAID = 300  # characters of the server's message quoted (it may echo a note's text)


def unreachable_hint(uri: str) -> str:
    """What a new user most often lacks when Neo4j does not answer: a server started."""
    where = f"; KNOTWORK_NEO4J_URI is {redact(uri)}" if uri else ""
    return (
        "is Neo4j running? `knotwork neo4j start` (no Docker) or "
        f"`docker compose up -d neo4j`{where}"
    )


def _one_line(what: object) -> str:
    """The driver's message on one line, without its closing period (the hint follows)."""
    return " ".join(str(what or "").split()).rstrip(".")


def _query_failure(exc: Neo4jError, what: str) -> GraphTransientError | GraphQueryError:
    """A server error past the runner's retries: transient (worth waiting for) or not. Says
    the query's name and Neo4j's code and message, never the query's parameters."""
    code = exc.code or type(exc).__name__
    said = redact(_one_line(exc.message)[:SAID])
    query = what or "a query"
    if exc.is_retryable():
        return GraphTransientError(
            f"Neo4j kept failing {query} with a transient error past the retries ({code}: "
            f"{said}); the database may be starting, stopping or switching leader: try "
            "again shortly",
            code,
        )
    return GraphQueryError(
        f"Neo4j failed {query} ({code}: {said}); the same query would fail again: see "
        "Neo4j's log (`knotwork doctor` checks the server and its indexes)",
        code,
    )


@contextmanager
def translated_errors(uri: str = "", what: str = "") -> Iterator[None]:
    """Every failure of the driver becomes a KnotworkError: connection and credential
    failures GraphUnavailableError with a hint, the server's own errors on ``what`` ("the
    query note_upsert") GraphTransientError or GraphQueryError."""
    try:
        yield
    except AuthError as exc:
        raise GraphAuthError(
            f"Neo4j rejected the credentials: {_one_line(exc.message)}. {CHECK_CREDENTIALS}"
        ) from exc
    except (ServiceUnavailable, SessionExpired, OSError) as exc:
        raise GraphUnavailableError(
            f"Neo4j is not reachable: {_one_line(exc)}; {unreachable_hint(uri)}"
        ) from exc
    except ValueError as exc:  # the driver's word for a host name that does not resolve
        if "resolve address" not in str(exc):
            raise
        raise GraphUnavailableError(
            f"Neo4j is not reachable: {exc}. Check the host in KNOTWORK_NEO4J_URI (`neo4j` names "
            "the compose service only inside compose; from this machine use 127.0.0.1)"
        ) from exc
    except Neo4jError as exc:
        if exc.code == RATE_LIMITED:
            raise GraphAuthError(  # the lock refuses the right password too, until it ends
                "Neo4j rejected the credentials: after repeated wrong passwords it locks the "
                f"login for a few seconds ({_one_line(exc.message)}). "
                f"{CHECK_CREDENTIALS.rstrip('.')}, then try again in a few seconds."
            ) from exc
        if exc.code in TIMED_OUT:
            raise QueryTimeoutError(
                "Neo4j stopped a query that ran past its time limit "
                "(KNOTWORK_NEO4J_QUERY_TIMEOUT_S for reads, or the server's "
                f"db.transaction.timeout): {exc.message}"
            ) from exc
        if "failed to obtain a connection from the pool" in str(exc):
            raise GraphBusyError(
                "every connection to Neo4j is in use and none came free in time; retry shortly"
            ) from exc
        raise _query_failure(exc, what) from exc
