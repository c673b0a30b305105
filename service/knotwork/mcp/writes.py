"""The write tools, registered only with ``knotwork mcp --allow-writes``: put and delete a note,
sync the whole vault. Each goes through ``serving.writes``, exactly as REST ``PUT`` and
``DELETE /notes/{path}`` and ``POST /sync`` do, under the same lease rules; what REST answers
with 202 or 503 comes back as the result's ``status`` (``accepted``, ``journaled``) with a
``detail``, and what it refuses (404, 409, 413, 422) as a tool error with REST's message."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from knotwork.mcp.bounded import fact_keys
from knotwork.mcp.common import NotePath, Served, ServedContext, add_tool, served, tool_errors
from knotwork.mcp.progress import reporting
from knotwork.plural import counted
from knotwork.serving import writes as note_writes
from knotwork.serving.bodies import Synced, ingested
from knotwork.serving.writes import WriteResult

Content = Annotated[str, Field(description="the note's whole Markdown text, frontmatter included")]

# Idempotent: the same call again changes nothing more (a note deleted twice: the second is
# refused). Destructive: a write may replace or remove what the user wrote; a sync only follows
# the folder (the graph is derived from it, a note gone from the graph is gone from the folder).
_UPSERT = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)
_DELETE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)
_SYNC = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


class NoteWritten(BaseModel):
    path: str = Field(description="the note's vault-relative path")
    status: Literal["done", "accepted", "journaled"] = Field(
        description="`done`: the graph shows it; `accepted`: the file changed and the vault's "
        "watcher (or this server's running sync, or its replay of a write whose lease was lost "
        "midway) ingests it; `journaled`: the file changed "
        "but Neo4j is down, the graph catches up on its own"
    )
    detail: str
    ingested_by: str | None = Field(default=None, description="the lease holder, if accepted")
    outcome: dict[str, Any] | None = Field(
        default=None,
        description="when done: the ingest's chunks, facts by extractor, and the first 50 facts "
        "added and removed (`added_total`, `removed_total` count them all)",
    )


def _written(result: WriteResult) -> NoteWritten:
    pending = result.outcome.pending if result.outcome is not None else 0
    later = (
        f"; the model's facts of its {counted(pending, 'chunk')} pending extraction follow"
        if pending
        else ""
    )
    details = {
        "done": f"the note is {result.done} and the graph shows it{later}",
        "accepted": f"the note is {result.done}; {result.ingested_by} brings the graph in step",
        "journaled": result.detail,
    }
    outcome = None
    if result.outcome is not None:
        outcome = fact_keys(ingested(result.outcome).model_dump())
    return NoteWritten(
        path=result.path,
        status=result.status,
        detail=details[result.status],
        ingested_by=result.ingested_by,
        outcome=outcome,
    )


def register(server: MCPServer[Served]) -> None:
    async def upsert_note(path: NotePath, content: Content, ctx: ServedContext) -> NoteWritten:
        """Create or replace a note's file in the vault and ingest it, as PUT /notes/{path}:
        the next `retrieve` or `ask` sees it. Refused (nothing written) for a path outside the
        vault, through a symbolic link or differing only by case from an existing note, a
        read-only vault, or a writer holding the vault that would not ingest it. The outcome
        lists at most 50 facts added and removed, with their totals."""
        state = served(ctx)
        assert state.core is not None and state.writers is not None
        with tool_errors():
            return _written(await note_writes.put_note(state.core, state.writers, path, content))

    async def delete_note(path: NotePath, ctx: ServedContext) -> NoteWritten:
        """Delete a note's file from the vault and the note from the graph, as DELETE
        /notes/{path}. Refused for a path outside the vault or a symbolic link, a read-only
        vault, or no note at exactly this path. The outcome lists at most 50 facts removed,
        with their total."""
        state = served(ctx)
        assert state.core is not None and state.writers is not None
        with tool_errors():
            return _written(await note_writes.delete_note(state.core, state.writers, path))

    async def sync(ctx: ServedContext) -> Synced:
        """Bring the graph in step with the whole vault folder, as POST /sync: new and changed
        notes ingested, moved and deleted ones followed; counts, warnings and errors. With a
        progress token, each step is reported (`writing notes: 12 of 40: …`) as it goes, the
        notes written and their total as the notification's `progress` and `total`."""
        state = served(ctx)
        assert state.core is not None and state.writers is not None
        with tool_errors():
            async with reporting(ctx, "syncing the vault folder", sized=True) as progress:
                return await note_writes.sync_all(state.core, state.writers, progress.counted)

    add_tool(server, upsert_note, _UPSERT)
    add_tool(server, delete_note, _DELETE)
    add_tool(server, sync, _SYNC)
