"""How ``--help`` shows each option's value: a metavar a person reads (PATH, N, FOLDER), never
the raw annotation Typer would print (``<str>``, ``<int range>``, ``<bool>``).

Typer puts a type column beside every parameter. For an option it shows the metavar when one is
given, so every option that takes a value declares one; a flag takes none, so its column is
left empty (Typer's own ``--help`` and completion flags included). An argument's metavar is
already its name in the help, so its type column is left empty too.

A docstring's line breaks are the source's width, not the terminal's: Typer's rich help keeps
them (a command listed in ``knotwork --help`` broke mid-sentence), so each paragraph is made
one line and wrapped to the terminal.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import typer
from typer._click import Context, Parameter  # Typer's own copy of Click, which it builds on
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption


class _Argument(TyperArgument):
    """An argument whose metavar names it: the type column would only repeat it as a type."""

    def display_type_rich(self, ctx: Context) -> str | None:
        return None if self.metavar is not None else super().display_type_rich(ctx)


def _readable(params: list[Parameter]) -> list[Parameter]:
    for param in params:
        if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
            param.metavar = ""  # a flag takes no value: nothing to show
        elif type(param) is TyperArgument:
            # Typer builds its own parameter classes with no hook for another; this one only
            # changes how the help shows the argument.
            param.__class__ = _Argument
    return params


def _reflowed(text: str | None) -> str | None:
    """``text`` with each paragraph on one line (paragraphs are apart by an empty line)."""
    if not text:
        return text
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(text).split("\n\n"))


class Command(TyperCommand):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = _reflowed(self.help)

    def get_params(self, ctx: Context) -> list[Parameter]:
        return _readable(super().get_params(ctx))


class Group(TyperGroup):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = _reflowed(self.help)

    def get_params(self, ctx: Context) -> list[Parameter]:
        return _readable(super().get_params(ctx))


class App(typer.Typer):
    """A Typer whose group and commands show readable metavars (see the module's docstring)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cls=Group, **kwargs)

    def command(  # type: ignore[override]
        self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **kwargs: Any
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return super().command(name, cls=cls or Command, **kwargs)
