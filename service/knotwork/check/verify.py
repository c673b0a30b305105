"""Canonical snapshots of a vault's graph, and verification against the folder itself (the
differences note by note, in words: check/differences.py)."""

from __future__ import annotations

import json
import logging
import re
import uuid
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from knotwork.check.differences import (
    UNRESOLVED,
    NoteDifference,
    Side,
    fact_object,
    fact_source,
    note_differences,
)
from knotwork.errors import LeaseHeldError
from knotwork.graph.lease import Lease, holding
from knotwork.graph.queries.admin import (
    DUMP_CHUNKS,
    DUMP_FACTS,
    DUMP_NODES,
    DUMP_NOTES,
    SCRATCH_VAULTS,
    DumpChunkFieldsRow,
    DumpChunksRow,
    DumpFactsRow,
    DumpLineRow,
    DumpNoteFieldsRow,
)
from knotwork.graph.store import GraphStore
from knotwork.ingest.ingestor import Ingestor
from knotwork.ingest.sync import Progress, sync_vault
from knotwork.plural import counted
from knotwork.vault.folders import other_folder

log = logging.getLogger(__name__)

SCRATCH_PREFIX = "verify-"
SCRATCH_NAME = re.compile(r"verify-[0-9a-f]{12}")  # a scratch vault's, never a user's vault
SCRATCH_MODE = "verify-scratch"  # the mode of a scratch vault's lease


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


def _text(value: object) -> str:
    """A field of a canonical line (a node a write left half made shows its nulls as "")."""
    return "" if value is None else str(value)


def _note_line(n: DumpNoteFieldsRow) -> DumpLineRow:
    lists = json.dumps([n["aliases"], n["tags"], n["dates"], n["frontmatter_error"]])
    fields = [n["path"], n["title"], n["stem"], n["lpath"], n["content_hash"], lists]
    return DumpLineRow(line="|".join(map(_text, [*fields, n["mentioned_by"]])))


def _chunk_line(c: DumpChunkFieldsRow) -> DumpChunksRow:
    at = f"{c['path']}#{c['ord']}"
    lines = f"{c['line_start']}-{c['line_end']}"
    # The language and the labels that put the chunk in a full-text index ("it/Italian"): a
    # fresh parse decides them, so a chunk left in another language's index is stale.
    language = "/".join([_text(c["language"]), *sorted(c["labels"])])
    states = [c["hash"], language, c["embedding_state"], c["extraction_state"]]
    order = json.dumps([sorted(c["next"]), sorted(c["entities"])])
    where = [at, c["heading_path"], c["line_start"], c["line_end"], c["hash"], language]
    parsed = json.dumps(where)
    line = "|".join(map(_text, [at, c["heading_path"], lines, *states, order]))
    return DumpChunksRow(line=line, parsed=parsed)


class _Read(TypedDict):
    """The dump queries' rows, before the notes and chunks are joined into lines."""

    notes: list[DumpNoteFieldsRow]
    chunks: list[DumpChunkFieldsRow]
    facts: list[DumpFactsRow]
    nodes: list[DumpLineRow]


async def _read(store: GraphStore, vault: str) -> _Read:
    return _Read(
        notes=await store.read(DUMP_NOTES, vault=vault),
        chunks=await store.read(DUMP_CHUNKS, vault=vault),
        facts=await store.read(DUMP_FACTS, vault=vault),
        nodes=await store.read(DUMP_NODES, vault=vault),
    )


def _lines(read: _Read) -> Dump:
    """Built in Python rather than Cypher: plain Cypher has no JSON of a list (APOC's
    ``apoc.convert.toJson`` would make verification need the plugin)."""
    notes = [_note_line(n) for n in read["notes"]]
    chunks = [_chunk_line(c) for c in read["chunks"]]
    return Dump(
        notes=sorted(notes, key=lambda r: r["line"]),
        chunks=sorted(chunks, key=lambda r: r["line"]),
        facts=read["facts"],
        nodes=read["nodes"],
    )


async def dump(store: GraphStore, vault: str) -> Dump:
    return _lines(await _read(store, vault))


def _side(read: _Read) -> Side:
    """The lines ``structural`` compares, by the note (and chunk) they belong to."""
    return Side(
        notes={n["path"]: (_note_line(n)["line"], n) for n in read["notes"]},
        chunks={(c["path"], c["ord"]): (_chunk_line(c)["parsed"], c) for c in read["chunks"]},
        facts={r["line"] for r in read["facts"] if r["extractor"] != "llm"},
        unresolved={r["line"] for r in read["nodes"] if r["line"].startswith("unresolved:")},
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


@dataclass
class Verified:
    """What verification found: the differences, and the files the fresh parse could not read
    (``path: why``). An ingest keeps such a note's last version in the graph, and so does the
    fresh parse (``_keep``): the file is for its owner to mend, and no difference."""

    differences: list[Difference]
    unreadable: list[str] = field(default_factory=list)
    notes: list[NoteDifference] = field(default_factory=list)  # the same, note by note
    links: list[NoteDifference] = field(default_factory=list)  # and unresolved link by link


async def verify_vault(ingestor: Ingestor, progress: Progress | None = None) -> list[Difference]:
    """Differences between the graph and a fresh ingest of the folder (``verify``'s)."""
    return (await verify_vault_report(ingestor, progress)).differences


async def verify_vault_report(ingestor: Ingestor, progress: Progress | None = None) -> Verified:
    """Differences between the graph and a fresh ingest of the folder (no model is called),
    and the files it could not read.

    The fresh ingest goes to a scratch vault in the same database, which is dropped after;
    ``progress`` follows it as it follows an ingest. The scratch vault's lease, held
    throughout, tells a later verify it is in use; those a killed verify left are dropped first.
    """
    core = ingestor.core
    store = core.store
    await drop_stale_scratch(store, core.settings.lease_ttl_s)
    scratch = f"{SCRATCH_PREFIX}{uuid.uuid4().hex[:12]}"
    fresh = Ingestor(
        core, root=ingestor.root, vault=scratch, extract_enabled=False, embed_enabled=False
    )
    fresh.kept_from = ingestor.vault  # its notes the folder cannot read: kept, as a sync does
    lease = Lease(store, scratch, core.settings.lease_ttl_s)
    async with holding(lease, {"mode": SCRATCH_MODE, "watches": False}):
        try:
            report = await sync_vault(fresh, progress)
            read_want, read_have = await _read(store, scratch), await _read(store, ingestor.vault)
        finally:
            await store.drop_vault(scratch)
    _keep(read_want, read_have, report.kept)  # the notes the scratch sync kept, as a sync does
    want, have = structural(_lines(read_want)), structural(_lines(read_have))
    out = []
    for part in want:
        missing = sorted(set(want[part]) - set(have[part]))
        stale = sorted(set(have[part]) - set(want[part]))
        if missing or stale:
            out.append(Difference(part, missing, stale))
    notes, links = note_differences(_side(read_want), _side(read_have), report.kept)
    return Verified(out, list(report.errors), notes, links)


def _keep(want: _Read, have: _Read, kept: set[str]) -> None:
    """The fresh parse given the kept notes as a sync leaves them (the scratch sync holds their
    nodes only, for links to resolve to them): their chunks and structural facts as the graph
    holds them, the unresolved links those make, and their mentions in the counts of the notes
    they mention. Other notes' lines stay the fresh parse's own."""
    if not kept:
        return
    paths = {n["path"] for n in have["notes"]} | {n["path"] for n in want["notes"]}
    theirs = [r for r in have["facts"] if fact_source(r["line"], paths) in kept]
    ours = [r for r in want["facts"] if fact_source(r["line"], paths) not in kept]
    want["facts"] = sorted([*ours, *theirs], key=lambda r: r["line"])
    want["chunks"] = [c for c in want["chunks"] if c["path"] not in kept] + [
        c for c in have["chunks"] if c["path"] in kept
    ]
    keys: set[str] = set()
    mentions: dict[str, set[str]] = {}
    for r in theirs:
        source = fact_source(r["line"], paths)
        read = fact_object(r["line"], source)
        if read is None:
            continue
        relation, target, extractor = read
        if target.startswith(UNRESOLVED):
            keys.add(target.removeprefix(UNRESOLVED))
        elif relation == "MENTIONS" and extractor == "mention":
            mentions.setdefault(target.removeprefix("note:"), set()).add(source)
    # An unresolved link a kept note makes is the graph's, name and all: its name is picked
    # among every note's spellings of it, the kept note's too, which the fresh parse lacks.
    want["nodes"] = [r for r in want["nodes"] if _unresolved_key(r["line"]) not in keys] + [
        r for r in have["nodes"] if _unresolved_key(r["line"]) in keys
    ]
    want["notes"] = [
        {**n, "mentioned_by": n["mentioned_by"] + len(mentions.get(n["path"], ()))}
        for n in want["notes"]
    ]


def _unresolved_key(line: str) -> str | None:
    """The key of an unresolved link's node line, None for any other node."""
    return line.partition("|")[0].removeprefix(UNRESOLVED) if line.startswith(UNRESOLVED) else None


async def drop_stale_scratch(store: GraphStore, ttl_s: int) -> list[str]:
    """Drop the scratch vaults no live verify holds: those a verify killed outright (SIGKILL,
    a crash, the machine stopped) left behind. They are hidden from every command, yet their
    chunks weigh in the full-text indexes every vault shares. A verify holds its scratch
    vault's lease, so one running now is refused here and kept; a killed one's lapses after
    ``ttl_s``. The names of the vaults dropped."""
    dropped = []
    for row in await store.read(SCRATCH_VAULTS, prefix=SCRATCH_PREFIX):
        vault = row["vault"]
        if not SCRATCH_NAME.fullmatch(vault):
            continue
        try:
            async with holding(
                Lease(store, vault, ttl_s), {"mode": SCRATCH_MODE, "watches": False}
            ):
                nodes = await store.drop_vault(vault)
        except LeaseHeldError:
            continue  # a verify running now
        log.info(
            "dropped scratch vault %s (%s), left by a verify that was killed",
            vault,
            counted(nodes, "node"),
        )
        dropped.append(vault)
    return dropped


async def synced_from(ingestor: Ingestor) -> str | None:
    """The folder the vault was last synced from when it is not the one verified (a
    KNOTWORK_VAULT_NAME or path mixed up: every note would show as a difference), else None."""
    root = ingestor.root
    return None if root is None else await other_folder(ingestor.core.store, ingestor.vault, root)
