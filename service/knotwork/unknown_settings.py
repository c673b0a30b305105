"""``KNOTWORK_`` variables no setting reads: a typo (``KNOTWORK_VAULT_NAM``) would otherwise
leave its setting at the default unnoticed, so ``get_settings`` warns of each, naming the
setting it is nearest to."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path

from knotwork.settings import Settings

# KNOTWORK_ variables that are not settings: the test suite's (its Neo4j, the evaluation data,
# the write-race rounds), the benchmarks', and what the install scripts and the image read.
_NOT_SETTINGS = (
    "KNOTWORK_TEST_",
    "KNOTWORK_EVAL_DIR",
    "KNOTWORK_RACE_",
    "KNOTWORK_BENCH_",
    "KNOTWORK_EXTRAS",
    "KNOTWORK_IMAGE_EXTRAS",
)


def unknown_variables(names: Iterable[str]) -> list[str]:
    """A warning for each ``KNOTWORK_`` name no setting reads (a typo is otherwise silently
    the default), with the nearest setting's name when one is close."""
    known = {f"KNOTWORK_{name.upper()}" for name in Settings.model_fields}
    warnings = []
    for name in sorted(set(names)):
        upper = name.upper()
        if not upper.startswith("KNOTWORK_") or upper in known or upper.startswith(_NOT_SETTINGS):
            continue
        # Compared without the prefix they share, or every name is near every other.
        near = difflib.get_close_matches(upper[9:], [k[9:] for k in known], n=1, cutoff=0.75)
        hint = f"; did you mean KNOTWORK_{near[0]}?" if near else ""
        warnings.append(f"{name} is not a Knotwork setting and is ignored{hint}")
    return warnings


def env_file_names(path: Path) -> list[str]:
    """The variable names a ``.env`` file sets (``NAME=value`` lines, ``export`` allowed)."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    names = (line.strip().removeprefix("export ").partition("=") for line in lines)
    return [name.strip() for name, equals, _ in names if equals and not name.startswith("#")]
