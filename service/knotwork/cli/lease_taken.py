"""The vault's lease taken by a CLI writer (`ingest`, `retry`, `reembed`), the API server's
background extraction waited out. That holder keeps the lease only for a pass of a few chunks
and leaves it free for PASS_GAP_S (0.5 s) before the next (serving/extraction.py): a writer
that tried once, after seconds of loading its models, was refused for as long as a REST-written
backlog lasted. Any other holder is refused at once, as before."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

import typer

from knotwork.cli.escaped import say
from knotwork.errors import LeaseHeldError
from knotwork.graph.lease import REST_EXTRACT_MODE, Lease

# A pass is EXTRACT_PASS (4) chunks: on a CPU chat model, a minute each.
EXTRACTION_WAIT_S = 300.0
TRY_EVERY_S = 0.1  # well within the gap between two passes


async def take(lease: Lease, status: Mapping[str, Any], wait_s: float | None = None) -> None:
    """Take ``lease`` (LeaseHeldError when another holder has it), trying again every
    TRY_EVERY_S while the holder is the API's extraction, for at most ``wait_s`` (by default
    EXTRACTION_WAIT_S): said once on stderr, and its timeout said with what to do."""
    wait_s = EXTRACTION_WAIT_S if wait_s is None else wait_s
    deadline: float | None = None
    while True:
        try:
            await lease.acquire(status)
            return
        except LeaseHeldError as exc:
            # The holder as the refusing take read it: a second read could find it gone.
            # None: a re-embedding, or a lease that kept changing hands, not waited out.
            row = exc.held_by
            if row is None or row.get("mode") != REST_EXTRACT_MODE:
                raise
        now = time.monotonic()
        if deadline is None:
            deadline = now + wait_s
            say(
                f"waiting for the API server's extraction pass to give vault {lease.vault!r} "
                f"back (it does between passes of a few chunks; at most {wait_s:.0f} s)",
                fg=typer.colors.YELLOW,
                err=True,
            )
        elif now >= deadline:
            raise LeaseHeldError(
                f"vault {lease.vault!r} is being written by the API server's background "
                f"extraction ({row['holder']}, host {row['host']}, pid {row['pid']}), which "
                f"did not give it back within {wait_s:.0f} s (a slow chat model: a pass "
                "extracts a few chunks); run this again later, or stop the API server first",
                row,
            )
        await asyncio.sleep(TRY_EVERY_S)
