"""Errors as messages show them: credentials masked, and never a bare "Name: "."""

from __future__ import annotations

import httpx

from knotwork.redact import described, redact


def test_an_error_without_text_is_described_by_its_name_alone() -> None:
    assert described(httpx.ReadTimeout("")) == "ReadTimeout"
    assert described(TimeoutError()) == "TimeoutError"


def test_an_error_is_described_with_its_text_cut_after_the_credentials_are_masked() -> None:
    error = ConnectionError("cannot reach http://user:s3cret@127.0.0.1:11434/api/embed")
    assert "s3cret" not in described(error)
    assert described(error).startswith("ConnectionError: cannot reach http://")
    assert described(ValueError("a" * 50), limit=10) == "ValueError: " + "a" * 10
    assert redact("bolt://neo4j:pw@host:7687") != "bolt://neo4j:pw@host:7687"
