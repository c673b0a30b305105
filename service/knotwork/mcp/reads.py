"""The tools that read the graph's notes: one note, a search, a note's history, the counts."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from knotwork.mcp.bounded import (
    CHUNKS_PAGE,
    FACT_KEYS,
    FACTS_PAGE,
    NAMES,
    ChunkLimit,
    FactLimit,
    Offset,
    fact_keys,
    names,
    note_page,
)
from knotwork.mcp.common import (
    MAX_NOTE_PATH,
    READ_ONLY,
    NotePath,
    Served,
    ServedContext,
    add_tool,
    core_of,
    tool_errors,
)
from knotwork.retrieve.notes import note_detail, note_history, search_notes, vault_stats
from knotwork.vault.files import clean_relpath

ChunkId = Annotated[
    str | None,
    Field(
        max_length=MAX_NOTE_PATH + 200,  # the vault's name, the path, the chunk's number and hash
        description="a citation's `chunk_id`: only that chunk of the note, in place of a page",
    ),
]
Limit = Annotated[int, Field(strict=True, ge=1, le=500, description="at most this many, 1 to 500")]
# The bounds of GET /notes' parameters, so both answer alike.
Text = Annotated[
    str | None,
    Field(
        max_length=500,
        description="part of the note's file name, title or an alias (case-insensitive)",
    ),
]
Tag = Annotated[
    str | None,
    Field(max_length=100, description="a tag, with or without `#`; nested tags match"),
]
SearchFolder = Annotated[
    str | None,
    Field(
        max_length=500,
        description="only notes under this vault-relative folder, e.g. `projects`",
    ),
]


class Revision(BaseModel):
    path: str = Field(description="the note's path then: an older one before a rename")
    at: str = Field(description="when, ISO 8601")
    kind: str = Field(description="what happened: an ingest, rename, delete, extraction…")
    old_hash: str | None
    new_hash: str | None
    added: list[str] | None = Field(
        description=f"the facts this revision added, the first {FACT_KEYS}"
    )
    removed: list[str] | None = Field(
        description=f"the facts this revision removed, the first {FACT_KEYS}"
    )
    added_total: int | None = Field(description="how many facts it added")
    removed_total: int | None = Field(description="how many facts it removed")
    renamed_from: str | None
    renamed_to: str | None = Field(
        default=None, description="kind 'renamed': the path the note moved to, leaving this one"
    )


class NoteFound(BaseModel):
    path: str
    title: str
    aliases: list[str] = Field(description=f"the first {NAMES}")
    aliases_total: int
    tags: list[str] = Field(description=f"the first {NAMES}")
    tags_total: int
    chunks: int = Field(description="how many chunks the note was cut into")


class NoteSearch(BaseModel):
    notes: list[NoteFound] = Field(description="ordered by path")


class NoteHistory(BaseModel):
    path: str
    revisions: list[Revision] = Field(description="newest first")


def register(server: MCPServer[Served]) -> None:
    async def get_note(
        path: NotePath,
        ctx: ServedContext,
        chunk_offset: Offset = 0,
        chunk_limit: ChunkLimit = CHUNKS_PAGE,
        fact_offset: Offset = 0,
        fact_limit: FactLimit = FACTS_PAGE,
        chunk_id: ChunkId = None,
    ) -> dict[str, Any]:
        """One note as the graph holds it: its metadata, its chunks (text, heading, lines) and
        the facts it asserts with their provenance, as GET /notes/{path} but paged: at most
        `chunk_limit` chunks from `chunk_offset` (default 20, at most 100), each chunk's text
        cut at 2,000 chars (`text_chars` says its length), at most `fact_limit` facts from
        `fact_offset` (default 50, at most 200), and the first 50 aliases, tags and dates.
        `chunks_total`, `facts_total`, `aliases_total`, `tags_total` and `dates_total` give the
        totals: call again with a larger offset for the rest. A chunk's `id` is the `chunk_id`
        of the citations and facts that name it; with `chunk_id`, that chunk alone is returned."""
        core = core_of(ctx)
        with tool_errors():
            detail = await note_detail(core, path)
        return note_page(detail, chunk_offset, chunk_limit, fact_offset, fact_limit, chunk_id)

    async def search_notes_(
        ctx: ServedContext,
        text: Text = None,
        tag: Tag = None,
        folder: SearchFolder = None,
        limit: Limit = 50,
    ) -> NoteSearch:
        """Find notes by name, tag or folder (every criterion given must hold; none lists
        them all): each with its path, title, aliases, tags (the first 50 of each, with
        `aliases_total` and `tags_total`) and chunk count. Use it to find the path to pass to
        `get_note` or `note_history`."""
        core = core_of(ctx)
        with tool_errors():
            rows = await search_notes(core, text, tag=tag, folder=folder, limit=limit)
        notes = [NoteFound.model_validate(names(row, ("aliases", "tags"))) for row in rows]
        return NoteSearch(notes=notes)

    async def note_history_(path: NotePath, ctx: ServedContext, limit: Limit = 20) -> NoteHistory:
        """A note's revisions, newest first, also after it was deleted or renamed away, and
        through its renames (each revision says the path it had then): when, what kind of
        change, and the facts each revision added and removed: the first 50 of each, with
        `added_total` and `removed_total`."""
        core = core_of(ctx)
        with tool_errors():
            rows = await note_history(core, path, limit=limit)
            path = clean_relpath(path)
        revisions = [Revision.model_validate(fact_keys(row)) for row in rows]
        return NoteHistory(path=path, revisions=revisions)

    async def stats(ctx: ServedContext) -> dict[str, Any]:
        """Counts of the vault's notes, chunks, entities, unresolved links, facts by extractor,
        and pending embeddings or extractions; the same result as GET /stats."""
        core = core_of(ctx)
        with tool_errors():
            return await vault_stats(core)

    add_tool(server, get_note, READ_ONLY, quotes_notes=True)
    add_tool(server, search_notes_, READ_ONLY, name="search_notes", quotes_notes=True)
    add_tool(server, note_history_, READ_ONLY, name="note_history", quotes_notes=True)
    add_tool(server, stats, READ_ONLY)
