"""How the commands print what they found for a person: a citation as
``path#heading:lines``, a revision's fact as ``note`` prints a fact, verify's last line, what a
stopped watcher leaves."""

from __future__ import annotations

from pathlib import Path
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


def verify_summary(count: int, unreadable: int, elsewhere: str | None) -> str:
    """``verify``'s last line: agreement, or how many differences and what brings the graph in
    step; ``elsewhere``: the folder the vault was synced from, when it is not the one read (a
    sync of this one is refused, so ``ingest`` would not mend them)."""
    if not count:
        return "graph and vault agree"
    said = (
        f"{count} differences (missing: in the folder, not in the graph; stale: in the graph "
        "only). "
    )
    if elsewhere is not None:
        return said + (
            f"This folder is not the vault's (it was synced from {elsewhere}): verify that "
            "one, or check KNOTWORK_VAULT_PATH."
        )
    said += "`knotwork ingest` brings the graph in step (a running watcher does on its next rescan)"
    if unreadable:
        return said + (
            f", but not for a file it cannot read ({unreadable} above): the graph keeps such a "
            "note's last readable version until the file is mended or removed."
        )
    return said + "."


def watch_stopped(root: Path | None, unwritten: int, model_pending: int) -> list[str]:
    """What a watcher stopped by Ctrl-C or SIGTERM leaves: changes it could not write (their
    warnings said why) and chunks the model has not read yet; nothing is lost either way."""
    lines = [f"stopped watching {root}"]
    if unwritten:
        lines.append(
            f"{unwritten} changes were not written (see the warnings above): the next "
            "`knotwork watch` or `knotwork ingest` writes them"
        )
    if model_pending:
        lines.append(
            f"{model_pending} chunks wait for the model's extraction: the next `knotwork "
            "watch` or `knotwork retry` does them"
        )
    return lines
