"""What `verify` found, printed for a person: each note that differs with what differs in
words, the unresolved links, the files it cannot read, then a count and what mends them; with
``--json``, all of it and the raw canonical lines. A folder that is not the vault's stops it
before the parse, said as `ingest` and `doctor` say it."""

from __future__ import annotations

import shlex
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, get_args

import typer

from knotwork.check.differences import NoteDifference, Status
from knotwork.check.verify import Verified
from knotwork.cli.app import MAX_LISTED
from knotwork.cli.escaped import say
from knotwork.cli.printed import print_json
from knotwork.plural import counted, plural
from knotwork.vault.folders import AnotherFolder

FACT_SIGNS = (
    "in facts, + is the folder's, not yet in the graph; - the graph's only; ~ the same fact "
    "standing elsewhere in its note (another line or chunk, another spelling)"
)


@dataclass
class Checked:
    """A verify's outcome: what it found, or the folder refused before it parsed anything."""

    root: Path | None  # the folder verified
    named: bool  # given as PATH (the command that mends names it too)
    found: Verified | None = None
    refused: AnotherFolder | None = None
    # The folder the vault was last synced from, when this one is not it yet a sync takes it
    # for the vault's (moved, mounted elsewhere: it holds the vault's notes).
    elsewhere: str | None = None


def print_checked(checked: Checked, as_json: bool) -> int:
    """Print what verify found; its exit code: 0 graph and folder agree, 1 otherwise."""
    if as_json:
        print_json(_body(checked))
    elif checked.refused is not None:
        say(refused_said(checked.refused), fg=typer.colors.YELLOW)
    else:
        assert checked.found is not None
        _print_found(checked, checked.found)
    found = checked.found
    return 1 if found is None or found.differences else 0


def refused_said(refused: AnotherFolder) -> str:
    """A folder the sync would refuse: every note would differ, so nothing is compared."""
    fix = refused.fix
    return (
        f"{refused.reason}, so verify compares nothing: the vault's folder is {refused.was} "
        f"(`knotwork verify {shlex.quote(refused.was)}`). {fix[0].upper()}{fix[1:]}."
    )


def _print_found(checked: Checked, found: Verified) -> None:
    if checked.elsewhere is not None and checked.root is not None:
        here = checked.root.resolve()
        say(
            f"note: this vault was last synced from {checked.elsewhere}, not {here}; "
            "this folder holds its notes, so a sync takes it for the vault's (moved, or "
            "mounted elsewhere)",
            fg=typer.colors.YELLOW,
        )
    listed = [*found.notes, *found.links]
    for difference in listed[:MAX_LISTED]:
        say(str(difference), fg=typer.colors.RED)
    if (more := len(listed) - MAX_LISTED) > 0:
        say(f"… and {more} more (`knotwork verify --json` lists all)", fg=typer.colors.RED)
    for error in found.unreadable:
        say(f"cannot ingest {error}", fg=typer.colors.YELLOW)
    if any(w.startswith("facts: ") for d in listed[:MAX_LISTED] for w in d.what):
        say(FACT_SIGNS)
    say(_summary(checked, found))


def _summary(checked: Checked, found: Verified) -> str:
    """The last line: agreement, or how many notes and links differ and what mends them."""
    if not found.differences and found.unreadable:  # what an ingest leaves: nothing to mend
        return (
            "graph and vault agree as an ingest leaves them: it skips a file it cannot read "
            f"({len(found.unreadable)} above), and the graph keeps such a note's last readable "
            "version until the file is mended or removed."
        )
    if not found.differences:
        return "graph and vault agree"
    parts = []
    if found.notes:
        n = len(found.notes)
        parts.append(
            f"{counted(n, 'note')} {plural(n, 'differs', 'differ')} ({_by_status(found.notes)})"
        )
    if found.links:
        n = len(found.links)
        parts.append(f"{counted(n, 'unresolved link')} ({_by_status(found.links)})")
    said = "; ".join(parts) or counted(len(found.differences), "difference")
    mend = "knotwork ingest" + (f" {shlex.quote(str(checked.root))}" if checked.named else "")
    said += f". `{mend}` brings the graph in step (a running watcher does on its next rescan)"
    if found.unreadable:
        return said + (
            f", but not for a file it cannot read ({len(found.unreadable)} above): the graph keeps "
            "such a note's last readable version until the file is mended or removed."
        )
    return said + "."


def _by_status(differences: list[NoteDifference]) -> str:
    counts = {status: 0 for status in get_args(Status)}  # in that order
    for difference in differences:
        counts[difference.status] += 1
    return ", ".join(f"{n} {status}" for status, n in counts.items() if n)


def _body(checked: Checked) -> dict[str, Any]:
    """``--json``: each note and link that differs, in words and as the raw canonical lines
    (missing: in the folder, not in the graph; stale: in the graph only), or the refusal."""
    found = checked.found

    def listed(differences: list[NoteDifference]) -> list[dict[str, Any]]:
        return [{"path": d.path, "status": d.status, "what": list(d.what)} for d in differences]

    return {
        "agree": found is not None and not found.differences,
        "folder": str(checked.root) if checked.root is not None else None,
        "refused": asdict(checked.refused) if checked.refused is not None else None,
        "synced_from": checked.elsewhere,
        "notes": listed(found.notes) if found else [],
        "unresolved_links": listed(found.links) if found else [],
        "unreadable": list(found.unreadable) if found else [],
        "lines": {d.part: {"missing": d.missing, "stale": d.stale} for d in found.differences}
        if found
        else {},
    }
