"""How ``knotwork ask`` prints an answer for a person: sources unnumbered, so a stray "[1]" the
model wrote cannot be read as a pointer into the list."""

from __future__ import annotations

import pytest

from knotwork.cli.read import _print_answer


def test_the_sources_are_listed_without_the_numbers_an_answer_may_hold(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cited = [
        {"path": "People/Alice.md", "heading": "Alice > Work", "line_start": 8, "line_end": 11},
        {"path": "People/Bob.md", "heading": "", "line_start": 1, "line_end": 7},
    ]
    body = {
        "status": "ok",
        "answer": "Alice works at Acme [People/Alice.md#Alice > Work].",
        "citations": cited,
        "dropped_citations": ["[1]"],
        "warnings": [],
    }
    _print_answer(body)
    out = capsys.readouterr().out
    sources = out.split("sources:\n", 1)[1].splitlines()
    assert sources[:2] == ["  - People/Alice.md#Alice > Work:8-11", "  - People/Bob.md:1-7"]
