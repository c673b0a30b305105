"""The calls in the project's own Python (service, tests, benchmarks), for tests that hold every
call of a kind to a rule."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import REPO


def calls() -> Iterator[tuple[Path, ast.Call, str]]:
    """(file, call, the called name: ``x.name(…)`` or ``name(…)``) of every call."""
    for folder in ("service", "tests", "bench"):
        for source in sorted((REPO / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(source.read_text())):
                if isinstance(node, ast.Call):
                    func = node.func
                    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                    yield source, node, name
