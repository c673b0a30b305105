"""Response bodies of the note routes (``GET /notes``, ``GET``, ``PUT``, ``DELETE
/notes/{path}``, ``GET /stats``, ``POST /sync``), so OpenAPI describes each status a client can
get; ``NoteSearch`` is also the MCP ``search_notes`` tool's result.

The read bodies describe what ``retrieve.notes`` returns (the ``note_detail`` and
``vault_stats`` queries' rows); the write bodies are built here from the ingest's results, and
the MCP write tools serialise the same objects (``Synced`` is the ``sync`` tool's result).
"""

from __future__ import annotations

from typing import Literal, cast

from pydantic import BaseModel, Field

from knotwork.ingest.changes import NoteOutcome
from knotwork.ingest.sync import SyncReport


class NoteFound(BaseModel):
    path: str
    title: str
    aliases: list[str]
    tags: list[str]
    chunks: int = Field(description="how many chunks the note was cut into")


class NoteSearch(BaseModel):
    notes: list[NoteFound] = Field(description="ordered by path")


class NoteMeta(BaseModel):
    """A note's metadata. A note that another one mentions but a running sync has not
    written yet is a placeholder: only its path is set, the rest is null."""

    path: str = Field(description="vault-relative, e.g. `People/Ann.md`")
    title: str | None = Field(description="the frontmatter's `title`, or the file name")
    aliases: list[str] | None
    tags: list[str] | None = Field(description="without `#`")
    dates: list[str] | None = Field(description="the note's own dates, ISO `yyyy-mm-dd`")
    content_hash: str | None = Field(description="SHA-256 of the file's text")
    frontmatter_error: str | None = Field(description="why the frontmatter was ignored, if it was")
    updated_at: str | None = Field(description="when the graph last wrote it, ISO 8601")


class ChunkDetail(BaseModel):
    id: str
    ord: int = Field(description="position in the note, from 0")
    heading_path: str | None = Field(description="the headings above it, `A > B`")
    line_start: int
    line_end: int
    text: str = Field(description="the note's text, as data")
    embedding_state: str | None = Field(description="`pending` or `done`")
    extraction_state: str | None = Field(
        description="model extraction: `pending`, `done`, `error`…"
    )
    extraction_error: str | None


class FactDetail(BaseModel):
    subject: str = Field(description="the asserting note's path, or an entity's name")
    predicate: str = Field(description="the relation, from the fixed vocabulary")
    object: str = Field(description="a note's path, an entity's name, or a link as written")
    object_kind: Literal["note", "entity", "unresolved"]
    anchor: str | None = Field(
        None, description="the section a link points at: `#Heading` or `#^block`"
    )
    wording: str | None = Field(description="the original wording when the relation is generic")
    source: str = Field(description="the note that asserts it")
    chunk_id: str | None
    line: int | None
    extractor: str = Field(
        description="`wikilink`, `frontmatter`, `alias`, `tag`, `mention`, `llm`"
    )
    model: str | None = Field(description="the chat model, for model-extracted facts")
    confidence: float | None
    recorded_at: str | None = Field(description="ISO 8601")


class NoteDetail(BaseModel):
    """A note as the graph holds it: its chunks, and every fact it asserts with provenance."""

    note: NoteMeta
    chunks: list[ChunkDetail] = Field(description="in the note's order")
    facts: list[FactDetail] = Field(description="by line")


class VaultStats(BaseModel):
    """Counts of the vault's notes, chunks, entities, unresolved links, facts and pending work."""

    vault: str
    notes: int
    chunks: int
    entities: int
    unresolved: int = Field(description="links to notes that do not exist")
    pending_embeddings: int
    pending_extractions: int = Field(description="0 while model extraction is off")
    extraction_errors: int
    facts: dict[str, int] = Field(description="facts in the graph by extractor")
    extraction: Literal["on", "off"] = Field(description="whether model extraction is on")


IngestStatus = Literal["written", "unchanged", "deleted", "renamed", "missing"]


class Ingested(BaseModel):
    """What the ingest of one note did, once the graph shows the write: its text, links,
    frontmatter facts and embeddings. A write does not wait for the chat model: its facts
    (extractor `llm`) follow in the background for the chunks `pending_extractions` counts."""

    path: str
    status: IngestStatus
    chunks: int
    embedded: int = Field(description="chunks embedded now")
    facts: dict[str, int] = Field(
        description="the note's facts by extractor, as written now: the model's (`llm`) are "
        "not among them while chunks are pending extraction"
    )
    pending_extractions: int = Field(
        description="the note's chunks whose model extraction is still to come: this server "
        "extracts them in the background (each chunk's `extraction_state` in `GET "
        "/notes/{path}`); 0 with extraction off"
    )
    added: list[str] = Field(description="facts added")
    removed: list[str] = Field(description="facts removed")
    warnings: list[str]


class Accepted(BaseModel):
    """The file changed; the holder of the vault's lease brings the graph in step (202)."""

    path: str
    status: Literal["accepted"]
    ingested_by: str | None = Field(description="the lease's holder")


class Journaled(BaseModel):
    """The file changed but Neo4j is down: the graph catches up on its own (503)."""

    error: Literal["GraphUnavailableError"]
    path: str
    status: Literal["journaled"]
    detail: str


class Synced(BaseModel):
    notes: int
    written: int
    unchanged: int
    moved: int
    deleted: int
    facts: dict[str, int]
    warnings: list[str]
    errors: list[str]


def ingested(outcome: NoteOutcome) -> Ingested:
    return Ingested(
        path=outcome.path,
        status=cast(IngestStatus, outcome.status),  # NoteOutcome's statuses; pydantic checks
        chunks=outcome.chunks,
        embedded=outcome.embedded,
        facts=dict(outcome.facts),
        pending_extractions=outcome.pending,
        added=outcome.added,
        removed=outcome.removed,
        warnings=outcome.warnings,
    )


def synced(report: SyncReport) -> Synced:
    return Synced(
        notes=report.notes,
        written=report.written,
        unchanged=report.unchanged,
        moved=report.renamed,
        deleted=report.deleted,
        facts=dict(report.facts),
        warnings=report.warnings,
        errors=report.errors,
    )
