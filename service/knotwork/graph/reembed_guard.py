"""The lease `knotwork reembed` holds over every vault of one database.

A re-embedding rewrites every vault's vectors and the shared manifest, so a writer of any
vault that wrote meanwhile would store the old model's vectors, which nothing mends after.
Its lease has a name no vault can have (``GUARD``); a writer is refused (or, at a renewal, loses
its lease) while another holder has it live, and the re-embedding takes it only while no vault's
lease is live but its own. A take of any lease locks that node first, so takes are one at a
time; a writer's renewal, every few seconds per vault, locks only its own lease, which the
re-embedding locks too before it reads it (the why in lease_renew.cypher).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

# Vault names are [A-Za-z0-9_.-]{1,64} (settings.py): this one is no vault's.
GUARD = "*reembed*"


def holder_said(row: Mapping[str, Any]) -> str:
    """A lease holder as a refusal names it: who, where, what, when last heard of."""
    vault = f"vault {row['vault']!r}: " if row.get("vault") else ""
    return (
        f"{vault}{row.get('holder')} (host {row.get('host')}, pid {row.get('pid')}, mode "
        f"{row.get('mode')}, last heartbeat {ago(row.get('heartbeat_at'))})"
    )


def reembedding(vault: str, row: Mapping[str, Any]) -> str:
    """What a writer of ``vault`` refused (or stopped) by a live re-embedding is told."""
    return (
        f"vault {vault!r} cannot be written now: `knotwork reembed` is re-embedding every vault "
        f"of this database, {holder_said(row)}; a writer beside it would store the old model's "
        "vectors. Wait for it to finish, then start this writer with the new model's settings "
        "(KNOTWORK_EMBED_MODEL, KNOTWORK_EMBED_DIMENSION)."
    )


def refused(holders: Sequence[Mapping[str, Any]], ttl_s: int) -> str:
    """Why `knotwork reembed` does not start: the live leases of the database's writers."""
    return (
        "`knotwork reembed` re-embeds every vault of this database, so it does not start while "
        f"a writer of any vault holds its lease; live now: {'; '.join(map(holder_said, holders))}. "
        "Stop them (the watchers, `knotwork serve`, `knotwork mcp --allow-writes`, or wait for "
        f"an `ingest` or `retry` to finish; a killed one lets go {ttl_s} s after its last "
        "heartbeat), run `knotwork reembed`, then start them again with the new model's settings."
    )


def lost(row: Mapping[str, Any], holder: str, ttl_s: int) -> tuple[str, str]:
    """Why a re-embedding stopped when its lease over every vault was found lapsed (its
    process paused past the TTL): the message, and what happened (LeaseLostError's two).
    ``row``: whoever holds that lease now, this one's own when no one took it."""
    now = (
        f"another `knotwork reembed` holds it now, {holder_said({**row, 'vault': None})}"
        if row.get("holder") and row.get("holder") != holder
        else "no one holds it now, but a writer may have written meanwhile"
    )
    lapsed = f"`knotwork reembed` lost its lease over every vault of this database ({now})"
    return (
        f"{lapsed}; this re-embedding stopped, the manifest still marked as re-embedding. Run "
        "`knotwork reembed` again once no other runs; the heartbeat must reach Neo4j at least "
        f"every {ttl_s} s (KNOTWORK_LEASE_TTL_S)",
        lapsed,
    )


def ago(heartbeat_at: Any) -> str:
    """A lease's last heartbeat as a refusal says it, "12 s ago": in seconds, as the TTL and
    the waits it advises are (a timestamp beside them was a second format to read).
    ``heartbeat_at``: Neo4j's DateTime (lease_acquire) or its ISO string (lease_get)."""
    if heartbeat_at is None:
        return "never"
    at = heartbeat_at.to_native() if hasattr(heartbeat_at, "to_native") else heartbeat_at
    if isinstance(at, str):
        at = datetime.fromisoformat(at)
    # Another host's clock may run a little ahead of Neo4j's: never "-1 s ago".
    return f"{max(0, round((datetime.now(UTC) - at).total_seconds()))} s ago"
