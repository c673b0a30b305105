"""Named Cypher queries, loaded from ``cypher/<name>.cypher`` and cached.

Each file opens with ``//`` comment lines naming its parameters and returned columns. A file may
hold several statements separated by a ``;`` at the end of a line (schema files do); they are run
one by one. Query text never contains data: values travel as parameters.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from knotwork.errors import QueryNotFoundError

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def cypher_dir() -> Path:
    """The folder of ``.cypher`` files: inside the installed package, else the repository's."""
    package = Path(__file__).resolve().parents[1]  # knotwork/, this module being in knotwork/graph/
    for candidate in (package / "cypher", package.parents[1] / "cypher"):
        if candidate.is_dir():
            return candidate
    raise QueryNotFoundError(f"no cypher/ folder in {package} or at the repository root")


@cache
def statements(name: str) -> tuple[str, ...]:
    """The statements of query ``name``, comments stripped; unknown names fail loudly."""
    if not _NAME.match(name):
        raise QueryNotFoundError(f"{name!r} is not a valid query name")
    path = cypher_dir() / f"{name}.cypher"
    if not path.is_file():
        raise QueryNotFoundError(f"no Cypher query named {name!r} (looked for {path})")
    body = "\n".join(
        line
        for line in path.read_text(encoding="utf-8").splitlines()
        if not line.lstrip().startswith("//")
    )
    parts = tuple(p.strip() for p in re.split(r";\s*$", body, flags=re.MULTILINE) if p.strip())
    if not parts:
        raise QueryNotFoundError(f"query {name!r} ({path}) holds no statement")
    return parts


def load(name: str) -> str:
    """The text of single-statement query ``name``."""
    parts = statements(name)
    if len(parts) != 1:
        raise QueryNotFoundError(f"query {name!r} holds {len(parts)} statements; use statements()")
    return parts[0]
