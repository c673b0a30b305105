"""How the driver's failures reach callers: Neo4j down → GraphUnavailableError with a hint,
refusing the credentials (or locking the login after repeated refusals) → GraphAuthError, pool
exhausted → GraphBusyError, past a time limit → QueryTimeoutError."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from neo4j.exceptions import AuthError, ClientError, ServiceUnavailable, SessionExpired

from knotwork.errors import (
    GraphAuthError,
    GraphBusyError,
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


@contextmanager
def translated_errors(uri: str = "") -> Iterator[None]:
    """Connection and credential failures become GraphUnavailableError with a hint."""
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
    except ClientError as exc:
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
        if "failed to obtain a connection from the pool" not in str(exc):
            raise
        raise GraphBusyError(
            "every connection to Neo4j is in use and none came free in time; retry shortly"
        ) from exc
