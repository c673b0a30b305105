"""Canonical snapshots of a vault's graph: what equality and verification compare."""

from __future__ import annotations

from knotwork.graph import GraphStore

PARTS = ("notes", "chunks", "facts", "nodes")


async def snapshot(store: GraphStore, vault: str) -> dict[str, list[str]]:
    """Sorted canonical lines of every note, chunk, fact and entity of the vault."""
    return {
        part: [row["line"] for row in await store.read(f"dump_{part}", vault=vault)]
        for part in PARTS
    }
