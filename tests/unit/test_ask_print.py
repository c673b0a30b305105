"""How ``knotwork ask`` prints an answer for a person: sources unnumbered, so a stray "[1]" the
model wrote cannot be read as a pointer into the list; an answer streamed to the terminal as it
came is not printed again, and one the final body overrules is followed by that body."""

from __future__ import annotations

import pytest

from knotwork.answer.refusal import INSUFFICIENT
from knotwork.cli.answering import print_answer as _print_answer


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


CITED = [{"path": "People/Alice.md", "heading": "Alice", "line_start": 1, "line_end": 3}]


def _body(status: str, answer: str | None, warnings: list[str] | None = None) -> dict:
    return {
        "status": status,
        "answer": answer,
        "citations": CITED,
        "dropped_citations": [],
        "warnings": warnings or [],
    }


def test_an_answer_streamed_as_it_came_only_ends_its_line_and_reads_as_printed_whole(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = "Alice works with Bob [People/Alice.md#Alice]."
    _print_answer(_body("ok", text))
    whole = capsys.readouterr().out
    print(text, end="")  # what the stream printed, as the model wrote it
    _print_answer(_body("ok", text), streamed=text)
    streamed = capsys.readouterr().out
    assert streamed == whole and streamed.count(text) == 1
    assert streamed.startswith(f"{text}\n\nsources:\n  - People/Alice.md#Alice:1-3")


def test_a_streamed_reply_the_final_body_overrules_is_followed_by_that_body(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The final body has the last word, as in the API's stream: the model's words that turn
    out to be a refusal are followed by the fixed sentence, and a reply cut by a model that
    failed midway by what the command says of a model that did not answer."""
    refusal = "The notes do not say who Alice works with."
    print(refusal, end="")
    _print_answer(_body("insufficient_context", INSUFFICIENT), streamed=refusal)
    out = capsys.readouterr().out
    # The refusal's partial evidence is no answer's sources, and is not called so.
    closest = "closest passages found (not enough to answer):"
    assert out.startswith(f"{refusal}\n{INSUFFICIENT}\n\n{closest}\n") and "sources:" not in out
    partial = "Alice works with"
    print(partial, end="")
    down = _body("model_unavailable", None, ["the chat model 'm' did not answer"])
    _print_answer(down, streamed=partial)
    out = capsys.readouterr().out
    assert out.startswith(f"{partial}\nthe chat model did not answer; the best evidence:\n")
    assert out.rstrip().endswith("warning: the chat model 'm' did not answer")


def test_an_answer_citing_none_of_the_notes_is_said_unsupported_above_its_evidence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    snippet = "Alice works with Bob\non the graph."
    given = [{**CITED[0], "snippet": snippet}]
    body = {**_body("ok", "Many people work with Bob.", ["cites none"]), "citations": []}
    _print_answer({**body, "uncited": True, "evidence": given})
    out = capsys.readouterr().out
    assert out.startswith("Many people work with Bob.\n\nunsupported: the answer cites none")
    assert "  - People/Alice.md#Alice:1-3\n    Alice works with Bob on the graph.\n" in out
    assert "sources:" not in out
