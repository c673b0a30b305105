"""graph.failures.translated_errors: the driver's credential failures become one clear
GraphAuthError, the login Neo4j locks after repeated wrong passwords included."""

from __future__ import annotations

import pytest
from neo4j.exceptions import ClientError, Neo4jError

from knotwork.errors import GraphAuthError
from knotwork.graph.failures import translated_errors


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


def test_another_client_error_is_left_alone() -> None:
    refused = _server_error("Neo.ClientError.Statement.SyntaxError", "Invalid input")
    with pytest.raises(ClientError), translated_errors():
        raise refused
