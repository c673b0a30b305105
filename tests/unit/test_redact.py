"""Errors as messages show them: credentials masked, and never a bare "Name: "."""

from __future__ import annotations

import logging

import httpx
import pytest
from pydantic import ValidationError

from knotwork.redact import RedactingFilter, described, misread_url, redact, redact_url
from knotwork.settings import Settings


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


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("user:SECRET@127.0.0.1:1", "user:***@127.0.0.1:1"),
        ("neo4j:SECRET@127.0.0.1:20800", "neo4j:***@127.0.0.1:20800"),
        ("TOKEN@127.0.0.1:11434", "***@127.0.0.1:11434"),
        ("bolt:user:p@ss@h:7687", "bolt:***@h:7687"),
        ("http://bob:S3cr3t@127.0.0.1:9", "http://bob:***@127.0.0.1:9"),
        ("http://127.0.0.1:11434", "http://127.0.0.1:11434"),
    ],
)
def test_a_url_settings_credentials_are_masked_without_its_slashes(value: str, shown: str) -> None:
    """``redact`` finds credentials after "scheme://" only; a URL setting's value written
    without it was printed with its password by the very check that refused it."""
    assert redact_url(value) == shown


def test_prose_with_an_at_sign_is_not_masked_by_redact() -> None:
    assert redact("time: 12:30@home") == "time: 12:30@home"


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("KNOTWORK_OLLAMA_BASE_URL", "user:SECRET@127.0.0.1:1"),
        ("KNOTWORK_NEO4J_URI", "neo4j:SECRET@127.0.0.1:20800"),
        ("KNOTWORK_NEO4J_URI", "bolt:user:SECRET@127.0.0.1:7687"),
    ],
)
def test_a_url_setting_refused_is_named_with_its_password_masked(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationError) as refused:
        Settings(_env_file=None)  # type: ignore[call-arg]
    said = "; ".join(str(e["msg"]) for e in refused.value.errors())
    assert "SECRET" not in said and ":***@127.0.0.1" in said, said


def test_the_access_log_hides_query_strings(caplog: pytest.LogCaptureFixture) -> None:
    """A key sent as ``?api_key=`` (refused, yet logged) and a search's words stay out of the
    log; the path and the status stay in."""
    caplog.handler.addFilter(RedactingFilter())
    access = logging.getLogger("uvicorn.access")
    with caplog.at_level(logging.INFO, logger="uvicorn.access"):
        for target, status in (
            ("/stats?api_key=abcdefghijklmnop1234", 401),
            ("/notes?text=Ali", 200),
        ):
            access.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5", "GET", target, "1.1", status)
        access.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5", "GET", "/health", "1.1", 200)
    assert [r.getMessage() for r in caplog.records] == [
        '127.0.0.1:5 - "GET /stats?*** HTTP/1.1" 401',
        '127.0.0.1:5 - "GET /notes?*** HTTP/1.1" 200',
        '127.0.0.1:5 - "GET /health HTTP/1.1" 200',
    ]
    assert "abcdefghijklmnop1234" not in caplog.text and "Ali" not in caplog.text
