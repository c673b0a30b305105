"""The calls in the project's own Python (service, tests, benchmarks), for tests that hold every
call of a kind to a rule."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import REPO


@functools.cache
def tree(path: Path) -> ast.Module:
    """The parsed file, once per run.

    Retried on SystemError: on CPython 3.11 a traceback formatted in another thread at the
    same moment (a fake server's, the watcher's) parses with ``ast`` too, and the two share
    one recursion counter (gh-106905)."""
    source = path.read_text(encoding="utf-8")
    for _ in range(4):
        try:
            return ast.parse(source)
        except SystemError:
            continue
    return ast.parse(source)


def calls() -> Iterator[tuple[Path, ast.Call, str]]:
    """(file, call, the called name: ``x.name(…)`` or ``name(…)``) of every call."""
    for folder in ("service", "tests", "bench"):
        for source in sorted((REPO / folder).rglob("*.py")):
            for node in ast.walk(tree(source)):
                if isinstance(node, ast.Call):
                    func = node.func
                    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                    yield source, node, name
