"""Errors as messages show them: credentials masked, and never a bare "Name: "."""

from __future__ import annotations

import httpx
import pytest

from knotwork.redact import described, misread_url, redact


def test_an_error_without_text_is_described_by_its_name_alone() -> None:
    assert described(httpx.ReadTimeout("")) == "ReadTimeout"
    assert described(TimeoutError()) == "TimeoutError"


def test_an_error_is_described_with_its_text_cut_after_the_credentials_are_masked() -> None:
    error = ConnectionError("cannot reach http://user:s3cret@127.0.0.1:11434/api/embed")
    assert "s3cret" not in described(error)
    assert described(error).startswith("ConnectionError: cannot reach http://")
    assert described(ValueError("a" * 50), limit=10) == "ValueError: " + "a" * 10
    assert redact("bolt://neo4j:pw@host:7687") != "bolt://neo4j:pw@host:7687"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "Is Ollama at http://bob:S3cr3t/xyz@127.0.0.1:36645 running",
            "Is Ollama at http://bob:***@127.0.0.1:36645 running",
        ),
        ("reachable at http://bob:S3c r3t@127.0.0.1:9", "reachable at http://bob:***@127.0.0.1:9"),
        ("'bolt://neo4j:NEO/SECRET@h:7687' is", "'bolt://neo4j:***@h:7687' is"),
        ("http://bob:a?b#c d/e@h:1/x http://c:d/e@f", "http://bob:***@h:1/x http://c:***@f"),
        ("http://u:p@[::1]:11434/x", "http://u:***@[::1]:11434/x"),
        # No password, so nothing to run on to: a host, a port, a path holding an "@".
        ("(http://h:11434) mail bob@x.org", "(http://h:11434) mail bob@x.org"),
        ("http://[::1]:11434 x@y", "http://[::1]:11434 x@y"),
        ("http://h:8080/a@b", "http://h:8080/a@b"),
    ],
)
def test_a_password_holding_a_slash_query_hash_or_space_is_masked(text: str, shown: str) -> None:
    """Such a password ends the URL's host early, and the mask stopped there: the password went
    to /query warnings, /health, doctor and the log in clear."""
    assert redact(text) == shown


def test_a_url_clients_would_misread_is_named_with_its_password_masked() -> None:
    problem = misread_url("http://bob:S3cr3t/xyz@127.0.0.1:9") or ""
    assert problem.startswith("the port in 'http://bob:***@127.0.0.1:9' is not a number")
    assert "percent-encoded" in problem and "S3cr3t" not in problem
    assert "1234" not in (misread_url("http://bob:1234/x@h") or "1234")  # read as host:port
    assert misread_url("http://127.0.0.1:11434/v1") is None
    assert misread_url("http://u:p%2Fw@h:1") is None
