"""How the read commands print what they found for a person: a citation as
``path#heading:lines``, a revision's fact as ``note`` prints a fact."""

from __future__ import annotations

from typing import Any


def cite(c: dict[str, Any]) -> str:
    heading = f"#{c['heading']}" if c.get("heading") else ""
    return f"{c['path']}{heading}:{c['line_start']}-{c['line_end']}"


def revision_fact(key: str) -> str:
    """A revision's fact, stored as ``rows.canonical`` writes it (relation|subject|target|
    extractor|line|predicate|chunk id), as ``note`` prints one: ``RELATION → target  [extractor,
    line N]``, the subject first when it is not the note itself."""
    parts = key.split("|")
    if len(parts) < 7:
        return key
    relation, subject, target = parts[0], parts[1], "|".join(parts[2:-4])
    extractor, line, predicate = parts[-4], parts[-3], parts[-2]
    said = f" ({predicate!r})" if predicate else ""
    who = f"{subject} " if subject else ""
    return f"{who}{relation}{said} → {target}  [{extractor}, line {line}]"
