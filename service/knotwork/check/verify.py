"""Canonical snapshots of a vault's graph, and verification against the folder itself."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from knotwork.graph.queries.admin import (
    DUMP_CHUNKS,
    DUMP_FACTS,
    DUMP_NODES,
    DUMP_NOTES,
    DumpChunksRow,
    DumpFactsRow,
    DumpLineRow,
)
from knotwork.graph.store import GraphStore
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import sync_vault


class Dump(TypedDict):
    """The rows of every dump query: a canonical line each, and for chunks and facts the
    columns verification selects by (never fields cut out of a line)."""

    notes: list[DumpLineRow]
    chunks: list[DumpChunksRow]
    facts: list[DumpFactsRow]
    nodes: list[DumpLineRow]


PARTS: tuple[Literal["notes", "chunks", "facts", "nodes"], ...] = (
    "notes",
    "chunks",
    "facts",
    "nodes",
)


async def dump(store: GraphStore, vault: str) -> Dump:
    return Dump(
        notes=await store.read(DUMP_NOTES, vault=vault),
        chunks=await store.read(DUMP_CHUNKS, vault=vault),
        facts=await store.read(DUMP_FACTS, vault=vault),
        nodes=await store.read(DUMP_NODES, vault=vault),
    )


async def snapshot(store: GraphStore, vault: str) -> dict[str, list[str]]:
    """Sorted canonical lines of every note, chunk, fact and entity of the vault."""
    rows = await dump(store, vault)
    return {part: [row["line"] for row in rows[part]] for part in PARTS}


def structural(rows: Dump) -> dict[str, list[str]]:
    """What a fresh parse determines: no model output, no embedding or extraction state."""
    return {
        "notes": [r["line"] for r in rows["notes"]],
        "chunks": sorted(r["parsed"] for r in rows["chunks"]),
        "facts": [r["line"] for r in rows["facts"] if r["extractor"] != "llm"],
        "unresolved": [r["line"] for r in rows["nodes"] if r["line"].startswith("unresolved:")],
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
        want = structural(await dump(store, scratch))
        have = structural(await dump(store, ingestor.vault))
    finally:
        await store.drop_vault(scratch)
    out = []
    for part in want:
        missing = sorted(set(want[part]) - set(have[part]))
        stale = sorted(set(have[part]) - set(want[part]))
        if missing or stale:
            out.append(Difference(part, missing, stale))
    return out
