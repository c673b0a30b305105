"""Canonical snapshots of a vault's graph, and verification against the folder itself."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from knotwork.graph import GraphStore
from knotwork.ingest import Ingestor
from knotwork.sync import sync_vault

PARTS = ("notes", "chunks", "facts", "nodes")


async def snapshot(store: GraphStore, vault: str) -> dict[str, list[str]]:
    """Sorted canonical lines of every note, chunk, fact and entity of the vault."""
    return {
        part: [row["line"] for row in await store.read(f"dump_{part}", vault=vault)]
        for part in PARTS
    }


def structural(snap: dict[str, list[str]]) -> dict[str, list[str]]:
    """What a fresh parse determines: no model output, no embedding or extraction state."""
    return {
        "notes": snap["notes"],
        "chunks": sorted("|".join(line.split("|")[:4]) for line in snap["chunks"]),
        "facts": [line for line in snap["facts"] if line.split("|")[4] != "llm"],
        "unresolved": [line for line in snap["nodes"] if line.startswith("unresolved:")],
    }


@dataclass
class Difference:
    part: str
    missing: list[str] = field(default_factory=list)  # in the folder, not in the graph
    stale: list[str] = field(default_factory=list)  # in the graph, not in the folder


async def verify_vault(ingestor: Ingestor) -> list[Difference]:
    """Differences between the graph and a fresh ingest of the folder (no model is called).

    The fresh ingest goes to a scratch vault in the same database, which is dropped after.
    """
    scratch = f"verify-{uuid.uuid4().hex[:12]}"
    fresh = Ingestor(
        ingestor.core, root=ingestor.root, vault=scratch, extract_enabled=False, embed_enabled=False
    )
    store = ingestor.core.store
    try:
        await sync_vault(fresh)
        want = structural(await snapshot(store, scratch))
        have = structural(await snapshot(store, ingestor.vault))
    finally:
        await store.drop_vault(scratch)
    out = []
    for part in want:
        missing = sorted(set(want[part]) - set(have[part]))
        stale = sorted(set(have[part]) - set(want[part]))
        if missing or stale:
            out.append(Difference(part, missing, stale))
    return out
