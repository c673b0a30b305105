"""REST writes for clients that are not the file system: put and delete a note.

The file in the vault stays the truth: a PUT writes it atomically, then ingests it under the
vault's lease — or leaves the ingest to whoever will do it (``api.writers``): a watcher that
holds the lease (202), this process's running sync (202), or the journal replay once Neo4j is
back (503 saying the file is saved). A write that no one would ingest is refused (409) before
the file changes. A read-only vault (the setting, a folder without write permission, or a write
the file system refuses) answers 409, never 500. Each write holds its note's lock
(``Core.note_locks``) from its checks to its graph write, so concurrent writes to one note
apply one after the other; what a write may touch (no symbolic links, no case variants, no
ignored places) is ``vault_write``'s policy.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import APIRouter, Body, HTTPException, status
from fastapi.responses import JSONResponse

from knotwork.api.deps import Authorized, CoreDep, WritersDep
from knotwork.api.limits import RETRY_AFTER_S
from knotwork.api.vault_http import (
    as_http,
    busy,
    note_file,
    outcome_json,
    refused_as_409,
    vault_root,
    writable,
)
from knotwork.api.writers import RestWriters, Way
from knotwork.errors import (
    GraphUnavailableError,
    LeaseLostError,
    NoteError,
    NoteNotFoundError,
    VaultPathError,
)
from knotwork.ingest import Ingestor, NoteOutcome
from knotwork.notes import note_detail, vault_stats
from knotwork.vault import decode
from knotwork.vault_write import (
    case_variants,
    case_variants_on_disk,
    delete_note_file,
    exists_exactly,
    refuse_case_variants,
    write_note_file,
)

router = APIRouter(prefix="", tags=["notes"], dependencies=[Authorized])

MarkdownBody = Annotated[str, Body(media_type="text/markdown", examples=["# Title\n\nText."])]

_SAVED = (
    "the vault's file is {done}, but Neo4j is not reachable, so the graph does not show it "
    "yet; the write is journaled and the graph catches up on its own once Neo4j answers again "
    "— nothing to redo"
)


def _saved(rel: str, done: str) -> JSONResponse:
    """The disk changed, the graph could not: 503, with what happened and what will."""
    return JSONResponse(
        {
            "error": "GraphUnavailableError",
            "path": rel,
            "status": "journaled",
            "detail": _SAVED.format(done=done),
        },
        status_code=503,
        headers={"Retry-After": str(RETRY_AFTER_S)},
    )


def _later(writers: RestWriters, way: Way, rel: str, done: str) -> JSONResponse:
    """The file changed; someone else brings the graph in step with it."""
    if way.kind == "offline":
        writers.journal.add(rel)
        return _saved(rel, done)
    if way.kind == "queued":
        writers.journal.add(rel)  # the running sync applies it before it ends
    holder = (way.holder or {}).get("holder")
    return JSONResponse({"path": rel, "status": "accepted", "ingested_by": holder}, status_code=202)


async def _ingest(
    writers: RestWriters, rel: str, done: str, work: Callable[[], Awaitable[NoteOutcome]]
) -> JSONResponse:
    try:
        outcome = await work()
    except GraphUnavailableError:
        writers.journal.add(rel)
        return _saved(rel, done)
    except LeaseLostError:
        writers.journal.add(rel)  # applied once the lease can be had again
        raise
    return JSONResponse(outcome_json(outcome))


@router.get("/notes/{path:path}", summary="A note's chunks and facts, with provenance")
async def get_note(path: str, core: CoreDep) -> JSONResponse:
    try:
        return JSONResponse(await note_detail(core, path))
    except VaultPathError as exc:
        raise HTTPException(422, str(exc)) from exc
    except NoteNotFoundError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from exc


@router.get("/stats", summary="Counts of notes, chunks, entities, facts and pending work")
async def stats(core: CoreDep) -> JSONResponse:
    return JSONResponse(await vault_stats(core))


@router.put(
    "/notes/{path:path}",
    summary="Write a note into the vault and ingest it",
    responses={
        202: {"description": "written; the watcher, or this server's running sync, ingests it"},
        409: {
            "description": "no vault, or a read-only one; the path goes through a symbolic "
            "link, differs only by case from an existing note, names a folder or lies under a "
            "file; or a writer that does not watch the files holds the vault (the detail "
            "names it); nothing is written"
        },
        413: {"description": "larger than KNOTWORK_MAX_NOTE_BYTES"},
        422: {"description": "not a note path, or one Knotwork ignores (the detail says why)"},
        503: {"description": "Neo4j is down: the file is saved and the graph catches up later"},
    },
)
async def put_note(
    path: str, body: MarkdownBody, core: CoreDep, writers: WritersDep
) -> JSONResponse:
    root = vault_root(core)
    rel, full = note_file(root, path)
    data = body.encode("utf-8")
    try:
        decode(data, rel, core.settings.max_note_bytes)
    except NoteError as exc:
        code = 413 if "limit" in str(exc) else 422
        raise HTTPException(code, str(exc)) from exc
    writable(core, root)
    # From the checks to the graph write: no interleaving with another write of this note.
    async with core.note_locks.hold(rel), writers.write() as way:
        if way.kind == "busy":
            raise busy(rel, way.holder)
        with as_http():
            if way.kind == "offline":  # the disk's case variants; the graph's are the disk's
                variants = case_variants_on_disk(root, rel)
            else:
                variants = await case_variants(core.store, writers.vault, root, rel)
            refuse_case_variants(rel, variants)
            with refused_as_409():
                write_note_file(root, rel, full, data)
        if way.kind != "direct":
            return _later(writers, way, rel, "saved")
        mtime = full.stat().st_mtime
        ingestor = Ingestor(core, root=root)
        return await _ingest(writers, rel, "saved", lambda: ingestor.upsert_text(rel, body, mtime))


@router.delete(
    "/notes/{path:path}",
    summary="Delete a note from the vault and the graph",
    responses={
        202: {"description": "deleted; the watcher, or this server's running sync, removes it"},
        404: {"description": "no note at exactly this path, in the vault or in the graph"},
        409: {
            "description": "no vault, or a read-only one; the path is a symbolic link; or a "
            "writer that does not watch the files holds the vault; nothing is deleted"
        },
        422: {"description": "not a note path, or one Knotwork ignores (the detail says why)"},
        503: {"description": "Neo4j is down: the file is deleted and the graph catches up"},
    },
)
async def delete_note(path: str, core: CoreDep, writers: WritersDep) -> JSONResponse:
    root = vault_root(core)
    rel, full = note_file(root, path)
    async with core.note_locks.hold(rel):
        on_disk = exists_exactly(full)
        if on_disk:
            writable(core, root)
        else:  # gone from the disk (say, by an earlier delete while Neo4j was down)
            rows = await core.store.read("notes_state", vault=writers.vault, paths=[rel])
            if not any(row["content_hash"] is not None for row in rows):
                raise HTTPException(status.HTTP_404_NOT_FOUND, f"no note {rel!r} in the vault")
        async with writers.write() as way:
            if way.kind == "busy":
                raise busy(rel, way.holder)
            if on_disk:
                with as_http(), refused_as_409():
                    delete_note_file(rel, full)
            if way.kind != "direct":
                return _later(writers, way, rel, "deleted")
            ingestor = Ingestor(core, root=root)
            return await _ingest(writers, rel, "deleted", lambda: ingestor.delete(rel))
