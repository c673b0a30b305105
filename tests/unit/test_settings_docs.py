"""Every range ``settings.Settings`` enforces is stated where users read the settings: the
README's configuration table and ``.env.example``; a user should not meet a bound first as
``error: invalid settings`` and exit 2."""

from __future__ import annotations

import re

import pytest

from knotwork.settings import Settings
from tests.conftest import REPO


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _bounds(name: str) -> list[str]:
    """What the docs must state of a field's range: each bound (but a duration's ``gt=0``,
    "positive", which goes without saying), a pattern's longest length, a size's units."""
    said: list[str] = []
    for rule in Settings.model_fields[name].metadata:
        for kind in ("ge", "le", "gt", "lt"):
            bound = getattr(rule, kind, None)
            if bound is not None and not (kind == "gt" and bound == 0):
                said.append(_number(bound))
        pattern = getattr(rule, "pattern", None)
        if pattern is not None:
            if longest := re.search(r"\{\d+,(\d+)\}", pattern):
                said.append(longest[1])
            if "[mMgG]" in pattern:
                said.append("m or g")
    return said


BOUNDED = [name for name in Settings.model_fields if _bounds(name)]


def _readme_row(variable: str) -> str:
    text = (REPO / "README.md").read_text()
    [row] = [line for line in text.splitlines() if line.startswith(f"| `{variable}` |")]
    return row.split("|", 3)[3].replace("`", "")


def _env_comment(variable: str) -> str:
    """The comment block above ``variable`` in .env.example, through its group's other lines."""
    lines = (REPO / ".env.example").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(f"{variable}="))
    said: list[str] = []
    for line in reversed(lines[:at]):
        if not line.strip() or line.startswith("# ---"):
            break
        if line.startswith("#"):
            said.append(line.lstrip("# "))
    return " ".join(reversed(said)).replace("`", "")


def _states(text: str, bound: str) -> bool:
    return re.search(rf"(?<![\d.]){re.escape(bound)}(?!\.?\d)", text) is not None


def test_the_bounded_settings_are_found() -> None:
    assert {"neo4j_unavailable_after_s", "ppr_damping", "neo4j_local_heap"} <= set(BOUNDED)


@pytest.mark.parametrize("name", BOUNDED)
def test_every_enforced_range_is_stated_in_the_readme_and_env_example(name: str) -> None:
    variable = f"KNOTWORK_{name.upper()}"
    row, comment = _readme_row(variable), _env_comment(variable)
    for bound in _bounds(name):
        assert _states(row, bound), f"README's {variable} row does not state {bound!r}: {row}"
        assert _states(comment, bound), f".env.example does not state {bound!r}: {comment}"
