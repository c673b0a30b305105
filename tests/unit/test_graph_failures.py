"""graph.failures.translated_errors: the driver's credential failures become one clear
GraphAuthError, the login Neo4j locks after repeated wrong passwords included; every other
error of the server becomes GraphTransientError (worth waiting for) or GraphQueryError, so no
driver exception reaches a caller outside graph/."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j.exceptions import ClientError, DatabaseError, Neo4jError, TransientError

from knotwork.errors import (
    GraphAuthError,
    GraphQueryError,
    GraphTransientError,
    GraphUnavailableError,
    KnotworkError,
)
from knotwork.graph.failures import translated_errors
from knotwork.graph.transactions import TransactionRunner


def _server_error(code: str, message: str) -> Neo4jError:
    """The error as the driver builds it from the server's FAILURE message."""
    return Neo4jError._hydrate_neo4j(code=code, message=message)


def test_a_login_locked_after_wrong_passwords_is_a_credentials_error() -> None:
    locked = _server_error(
        "Neo.ClientError.Security.AuthenticationRateLimit",
        "The client has provided incorrect authentication details too many times in a row.",
    )
    assert isinstance(locked, ClientError)  # not an AuthError: it used to fall through
    with pytest.raises(GraphAuthError) as caught, translated_errors("bolt://127.0.0.1:7687"):
        raise locked
    said = str(caught.value)
    assert said.startswith("Neo4j rejected the credentials: after repeated wrong passwords")
    assert "locks the login for a few seconds" in said
    assert "KNOTWORK_NEO4J_PASSWORD" in said and "\n" not in said


def test_a_transient_error_left_after_the_retries_is_one_to_wait_for() -> None:
    deadlock = _server_error(
        "Neo.TransientError.Transaction.DeadlockDetected", "ForsetiClient[1] can't acquire lock"
    )
    assert isinstance(deadlock, TransientError) and deadlock.is_retryable()
    with pytest.raises(GraphTransientError) as caught, translated_errors("", "the query q"):
        raise deadlock
    # A GraphUnavailableError: the watchers wait and retry, REST answers 503.
    assert isinstance(caught.value, GraphUnavailableError)
    assert caught.value.code == "Neo.TransientError.Transaction.DeadlockDetected"
    said = str(caught.value)
    assert "the query q" in said and "DeadlockDetected" in said and "try again" in said


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("Neo.DatabaseError.General.UnknownError", DatabaseError),
        ("Neo.ClientError.Statement.SyntaxError", ClientError),
        ("Neo.ClientError.Schema.ConstraintValidationFailed", ClientError),
    ],
)
def test_any_other_error_of_the_server_fails_the_work_as_a_knotwork_error(
    code: str, kind: type[Neo4jError]
) -> None:
    """They used to pass through as the driver's own exceptions: a traceback in the CLI, a
    bare 500 in REST, and each caller deciding for itself whether to retry."""
    failed = _server_error(code, "Node(12) already exists\nwith   a detail")
    assert isinstance(failed, kind) and not failed.is_retryable()
    with pytest.raises(GraphQueryError) as caught, translated_errors("", "the query note_put"):
        raise failed
    assert not isinstance(caught.value, GraphUnavailableError)  # not to be waited for
    assert caught.value.code == code and isinstance(caught.value, KnotworkError)
    said = str(caught.value)
    assert said.startswith(f"Neo4j failed the query note_put ({code}: Node(12) already exists")
    assert "\n" not in said


def test_a_long_server_message_is_cut() -> None:
    failed = _server_error("Neo.DatabaseError.General.UnknownError", "x" * 5000)
    with pytest.raises(GraphQueryError) as caught, translated_errors():
        raise failed
    assert len(str(caught.value)) < 600


def _runner(failures: list[Neo4jError]) -> tuple[TransactionRunner, list[int]]:
    """A runner whose managed transactions fail with ``failures`` in turn, then succeed."""
    runner, calls = TransactionRunner(driver=None, database="neo4j"), []  # type: ignore[arg-type]

    async def managed(work: Any) -> str:
        calls.append(1)
        if failures:
            raise failures.pop(0)
        return "done"

    runner._managed = managed  # type: ignore[method-assign]
    return runner, calls


async def test_a_write_meeting_a_node_deleted_meanwhile_is_run_again_then_translated() -> None:
    """The rerun looks at the driver's own code, so it happens before the translation."""
    gone = "Neo.ClientError.Statement.EntityNotFound"
    runner, calls = _runner([_server_error(gone, "Unable to load NODE 4:x:1")])
    assert await runner.write_transaction(lambda tx: tx) == "done" and len(calls) == 2
    runner, calls = _runner([_server_error(gone, "gone") for _ in range(10)])
    with pytest.raises(GraphQueryError, match="a write transaction"):
        await runner.write_transaction(lambda tx: tx)
    assert len(calls) == 6  # the first try and RERUNS reruns
