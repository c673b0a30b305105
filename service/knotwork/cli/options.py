"""The options and arguments several commands share, each with the metavar its help shows
(cli/helptext.py says why every value names one)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from knotwork.retrieve.config import MAX_TOP_K

VaultPath = Annotated[
    Path | None,
    typer.Argument(metavar="PATH", help="vault folder (default KNOTWORK_VAULT_PATH)"),
]
NotePath = Annotated[str, typer.Argument(metavar="PATH", help="the note's path in the vault")]
Json = Annotated[bool, typer.Option("--json", help="print the API's JSON body")]
Folder = Annotated[str | None, typer.Option(metavar="FOLDER", help="only notes under this folder")]
Tag = Annotated[
    list[str] | None,
    typer.Option("--tag", metavar="TAG", help="only notes with this tag (repeat)"),
]
DateFrom = Annotated[
    str | None, typer.Option("--from", metavar="DATE", help="notes dated on or after (ISO)")
]
DateTo = Annotated[
    str | None, typer.Option("--to", metavar="DATE", help="notes dated on or before (ISO)")
]
Trust = Annotated[
    str,
    typer.Option(metavar="all|structural", help="all, or structural (no model-extracted facts)"),
]
TopK = Annotated[int, typer.Option("--top-k", metavar="N", help=f"hits to use (1-{MAX_TOP_K})")]
Limit = typer.Option(min=1, max=1000, metavar="N", help="at most this many")

# The request model's field paths, as the options the user typed (``--from``, not
# ``filters.date_from``).
OPTION_OF = {
    "question": "QUESTION",
    "mode": "--mode",
    "top_k": "--top-k",
    "filters": "--from, --to",  # the one check across the filters: --from after --to
    "filters.folder": "--folder",
    "filters.tags": "--tag",
    "filters.date_from": "--from",
    "filters.date_to": "--to",
    "filters.trust": "--trust",
}


def option_named(loc: tuple[int | str, ...]) -> str:
    """The option an error's field path names: ``filters.tags.1`` is the second ``--tag``."""
    path = ".".join(map(str, loc))
    for depth in range(len(loc), 0, -1):
        field = ".".join(map(str, loc[:depth]))
        if field in OPTION_OF:
            return OPTION_OF[field]
    return path
