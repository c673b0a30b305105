"""Every command's ``--help`` names each value a person passes (PATH, N, FOLDER, stdio|http),
never Typer's raw annotations (``<str>``, ``<int range>``, ``<bool>`` beside a flag)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import typer
from typer.core import TyperArgument, TyperGroup, TyperOption
from typer.testing import CliRunner

from knotwork.cli import app

RAW_TYPE = re.compile(r"<[a-z][\w\[\]|, ]*>")  # <str>, <int range>, <list[str]>, <path>, <bool>


def _commands() -> Iterator[tuple[list[str], typer.core.TyperCommand]]:
    """(argv to the command, the command) for the app and every command and group under it."""
    todo: list[tuple[list[str], typer.core.TyperCommand]] = [([], typer.main.get_command(app))]
    while todo:
        argv, command = todo.pop()
        yield argv, command
        if isinstance(command, TyperGroup):
            todo += [([*argv, name], sub) for name, sub in command.commands.items()]


def test_every_help_shows_readable_metavars() -> None:
    runner = CliRunner()
    seen = 0
    for argv, _ in _commands():
        result = runner.invoke(app, [*argv, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, (argv, result.output)
        assert not RAW_TYPE.findall(result.output), (argv, result.output)
        seen += 1
    assert seen > 20  # the subcommands were walked, neo4j's included


def test_every_value_is_named_and_every_flag_takes_none() -> None:
    """What the help shows comes from the metavar: each option that takes a value and each
    argument declares one, in capitals or as its choices; a flag's is empty."""
    readable = re.compile(r"[A-Z][A-Z_,…]*|[a-z]+(\|[a-z]+)+")
    for argv, command in _commands():
        ctx = typer.main.get_command(app).make_context("knotwork", [], resilient_parsing=True)
        for param in command.get_params(ctx):
            where = (argv, param.name)
            if isinstance(param, TyperOption) and param.is_flag:
                assert param.metavar == "", where
            else:
                assert isinstance(param, TyperOption | TyperArgument), where
                assert param.metavar and readable.fullmatch(param.metavar), where


def test_a_help_text_wraps_to_the_terminal_not_to_the_source() -> None:
    """Typer's rich help kept a docstring's line breaks: ``knotwork --help`` listed a command's
    help broken where its source line ended ("pass after" / "pass until none is left")."""
    for argv, command in _commands():
        for paragraph in (command.help or "").split("\n\n"):
            assert "\n" not in paragraph, (argv, paragraph)
    listed = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"}).output
    retry = next(line for line in listed.splitlines() if "│ retry " in line)
    assert retry.rstrip(" │").endswith(
        "exit 1 when some stay pending or failed (a model down or broken)."
    ), retry
