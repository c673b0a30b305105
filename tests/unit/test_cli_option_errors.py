"""A read command's bad argument is refused naming the option the user typed (``--from``), not
the REST request's field (``filters.date_from``) the CLI validates it with; exit code 2."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from knotwork.cli import app as cli


@pytest.mark.parametrize(
    ("given", "named", "reason"),
    [
        (["--from", "2024-13-01"], "--from", "is not a calendar date"),
        (["--to", "soon"], "--to", "should be an ISO date"),
        (["--tag", "ok", "--tag", "#"], "--tag", "a tag is empty"),
        (["--folder", "../x"], "--folder", "climbs out of the vault"),
        (["--top-k", "0"], "--top-k", "greater than or equal to 1"),
        (["--trust", "some"], "--trust", "'all' or 'structural'"),
        (["--from", "2024-02-01", "--to", "2024-01-01"], "--from, --to", "is after"),
    ],
)
@pytest.mark.parametrize("command", ["ask", "retrieve"])
def test_a_bad_option_is_named_as_typed(
    command: str, given: list[str], named: str, reason: str
) -> None:
    result = CliRunner().invoke(cli, [command, "Who works with Alice?", *given])
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: {named}: "), result.output
    assert reason in result.output
    assert "filters." not in result.output and "top_k" not in result.output


def test_the_question_and_the_mode_are_named_as_typed() -> None:
    result = CliRunner().invoke(cli, ["ask", "🤔?"])
    assert result.exit_code == 2
    assert result.output.startswith("error: QUESTION: Value error, question holds no words")
    result = CliRunner().invoke(cli, ["ask", "Who?", "--mode", "slow"])
    assert result.exit_code == 2
    assert result.output.startswith("error: --mode: Input should be 'normal', 'fast'")
