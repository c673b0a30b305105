"""How many text mentions a vault's notes receive: the total, the most-mentioned notes, and any
notes asked for by name — to see whether notes named by common words collect mentions.

Usage (after the vault is ingested, e.g. by ``knotwork eval --vault … --name it``, with the
same Neo4j settings in the environment):
    .venv/bin/python -m bench.mentions --vault eval-it --top 10 --note Tra.md --note funzione.md
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from knotwork.core import open_core
from knotwork.graph.queries.admin import MENTIONS_COUNTS
from knotwork.settings import Settings


async def counts(settings: Settings, vault: str) -> list[dict[str, object]]:
    async with open_core(settings) as core:
        return await core.store.read(MENTIONS_COUNTS, vault=vault)


def table(rows: list[dict[str, object]], top: int, notes: list[str]) -> str:
    total = sum(int(str(r["mentions"])) for r in rows)
    lines = [
        f"MENTIONS: {total} facts to {len(rows)} notes",
        "",
        "| note | mentions | from notes |",
        "|---|---:|---:|",
    ]
    by_name = {str(r["path"]).rsplit("/", 1)[-1]: r for r in rows}
    shown = rows[:top] + [by_name.get(n, {"path": n, "mentions": 0, "notes": 0}) for n in notes]
    seen: set[str] = set()
    for row in shown:
        if str(row["path"]) in seen:
            continue
        seen.add(str(row["path"]))
        lines.append(f"| {row['path']} | {row['mentions']} | {row['notes']} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--vault", required=True)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--note", action="append", default=[], help="a file name to report")
    args = parser.parse_args()
    rows = asyncio.run(counts(Settings(), args.vault))
    sys.stdout.write(table(rows, args.top, args.note) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
