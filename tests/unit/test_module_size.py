"""Modules stay under the house limit of about 300 lines: past it, a module is split along a
seam (the watcher's writes: watch/apply.py, bulk.py, change.py; the vault's commands:
cli/vault.py and the summary they print, cli/synced.py). Held here for the packages split to
it; the rest follow as they are split."""

from __future__ import annotations

from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "service" / "knotwork"
LIMIT = 300
SPLIT = ("watch", "cli")


@pytest.mark.parametrize(
    "path",
    sorted(p for name in SPLIT for p in (PACKAGE / name).glob("*.py")),
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_a_split_packages_modules_stay_under_the_limit(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= LIMIT, f"{path.name} has {lines} lines: split it along a seam"
