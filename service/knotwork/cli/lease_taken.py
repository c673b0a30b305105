"""The vault's lease taken by a CLI writer (`ingest`, `retry`, `reembed`), a Knotwork server's
background extraction waited out: the REST API's or an MCP server's with writes, which the
lease does not tell apart (one mode, REST_EXTRACT_MODE; the holder is host, pid and a random
id), so both are named. That holder keeps the lease only for a pass of a few chunks
and leaves it free for PASS_GAP_S (0.5 s) before the next (serving/extraction.py): a writer
that tried once, after seconds of loading its models, was refused for as long as a REST-written
backlog lasted. So is the lease of a holder of this machine that no longer runs (a watcher
killed: graph/lease_gone.py), until it lapses. Any other holder is refused at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import typer

from knotwork.cli.escaped import say
from knotwork.errors import LeaseHeldError
from knotwork.graph.lease import REST_EXTRACT_MODE, Lease
from knotwork.graph.lease_gone import holder_gone
from knotwork.graph.reembed_guard import ago

# A pass is EXTRACT_PASS (4) chunks: on a CPU chat model, a minute each.
EXTRACTION_WAIT_S = 300.0
TRY_EVERY_S = 0.1  # well within the gap between two passes
_SERVERS = "the REST API's or an MCP server's"  # which, the lease does not say
GONE_TRY_S = 0.5  # a killed holder's lease is taken within this of its lapse
GONE_SLACK_S = 5.0  # past its TTL, a lapse still not seen: the holder runs after all

# A holder judged no longer running: (its holder id, its heartbeat then, the wait's deadline).
Gone = tuple[str, Any, float]


async def take(lease: Lease, status: Mapping[str, Any], wait_s: float | None = None) -> None:
    """Take ``lease`` (LeaseHeldError when another holder has it), trying again every
    TRY_EVERY_S while the holder is a server's extraction, for at most ``wait_s`` (by default
    EXTRACTION_WAIT_S): said once on stderr, and its timeout said with what to do."""
    wait_s = EXTRACTION_WAIT_S if wait_s is None else wait_s
    deadline: float | None = None
    gone: Gone | None = None
    while True:
        try:
            await lease.acquire(status)
            return
        except LeaseHeldError as exc:
            # The holder as the refusing take read it: a second read could find it gone.
            # None: a re-embedding, or a lease that kept changing hands, not waited out.
            row = exc.held_by
            if row is not None and holder_gone(row, lease.holder):
                gone = _gone_waited(lease, row, gone, exc)
                await asyncio.sleep(GONE_TRY_S)
                continue
            if row is None or row.get("mode") != REST_EXTRACT_MODE:
                raise
        now = time.monotonic()
        if deadline is None:
            deadline = now + wait_s
            say(
                f"waiting for a Knotwork server's extraction pass ({_SERVERS}) to give vault "
                f"{lease.vault!r} back (it does between passes of a few chunks; at most "
                f"{wait_s:.0f} s)",
                fg=typer.colors.YELLOW,
                err=True,
            )
        elif now >= deadline:
            raise LeaseHeldError(
                f"vault {lease.vault!r} is being written by a Knotwork server's background "
                f"extraction ({_SERVERS}: {row['holder']}, host {row['host']}, pid "
                f"{row['pid']}), which did not give it back within {wait_s:.0f} s (a slow chat "
                "model: a pass extracts a few chunks); run this again later, or stop that "
                "server first",
                row,
            )
        await asyncio.sleep(TRY_EVERY_S)


def _holder_ttl_s(row: Mapping[str, Any], ours: int) -> int:
    """The TTL the holder renewed its lease with (its KNOTWORK_LEASE_TTL_S, maybe not this
    writer's): its expiry less its last heartbeat; ``ours`` when the row does not say."""
    beat, expires = row.get("heartbeat_at"), row.get("expires_at")
    if beat is None or expires is None:
        return ours
    lapse: timedelta = expires.to_native() - beat.to_native()
    return max(0, round(lapse.total_seconds()))


def _gone_waited(lease: Lease, row: Mapping[str, Any], gone: Gone | None, exc: Exception) -> Gone:
    """The wait for the lease of a holder of this machine that no longer runs (a watcher
    killed) to lapse: said once; ``exc`` raised again when the holder's heartbeat moved (it
    runs after all: a pid reused, another holder's process) or the lapse is overdue."""
    holder, beat = str(row.get("holder")), row.get("heartbeat_at")
    if gone is None:
        ttl_s = _holder_ttl_s(row, lease.ttl_s)
        say(
            f"vault {lease.vault!r} is held by {holder} (pid {row.get('pid')} on this machine), "
            f"which is no longer running; its lease lapses {ttl_s} s after its last "
            f"heartbeat ({ago(beat)}): waiting for that",
            fg=typer.colors.YELLOW,
            err=True,
        )
        return holder, beat, time.monotonic() + ttl_s + GONE_SLACK_S
    if (holder, beat) != gone[:2] or time.monotonic() > gone[2]:
        raise exc
    return gone
