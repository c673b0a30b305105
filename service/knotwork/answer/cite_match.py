"""Which retrieved hit a citation written as a label names (``[path#heading]``, the old form the
model may still write), and whether a bracketed text is written like a citation at all. Paths
and headings are compared whole, as a reader sees them: either Unicode form, any case, spaces
collapsed; never parsed at a ``#`` or a bracket inside them.
"""

from __future__ import annotations

from collections.abc import Sequence

from knotwork.retrieve import Hit
from knotwork.text.keys import entity_key


# Compared as a reader sees them (entity_key): either Unicode form (a path from macOS is
# decomposed, the model may write it composed), any case, spaces collapsed.
def _norm_path(path: str) -> str:
    return entity_key(path).replace("\\", "/").lstrip("/").removeprefix("./")


def _norm_heading(heading: str) -> str:
    return entity_key(heading.lstrip("#").replace(">", " > "))


def match_citation(citation: str, hits: Sequence[Hit]) -> Hit | None:
    """The best-ranked hit an old-form citation names: the hit's path (``.md`` optional), then
    nothing (the note's best hit) or ``#`` and its heading path or last heading. The path is
    compared whole, so a ``#`` inside it is no separator."""
    want = _norm_path(citation)
    for hit in hits:
        path = _norm_path(hit.path)
        for prefix in dict.fromkeys((path, path.removesuffix(".md"))):
            if not want.startswith(prefix):
                continue
            rest = want[len(prefix) :]
            if rest == "" and prefix == path:
                return hit
            if rest.startswith("#"):
                full = _norm_heading(hit.heading)
                if _norm_heading(rest[1:]) in (full, full.rsplit(" > ", 1)[-1]):
                    return hit
    return None


def is_citation(inner: str) -> bool:
    """Written like a citation of a note: ``path.md``, or ``path#heading`` with both parts
    (``[C#]``, ``[#4521]`` are words)."""
    text = inner.strip()
    path, sep, heading = text.partition("#")
    return text.casefold().endswith(".md") or bool(sep and path.strip() and heading.strip())
