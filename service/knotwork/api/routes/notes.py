"""REST writes for clients that are not the file system: put and delete a note.

The file in the vault stays the truth: a PUT writes it atomically, then ingests it under the
vault's lease — or leaves the ingest to whoever will do it (``serving.writers``): a watcher that
holds the lease (202), this process's running sync (202), or the journal replay once Neo4j is
back (503 saying the file is saved). A write that no one would ingest is refused (409) before
the file changes. A read-only vault (the setting, a folder without write permission, or a write
the file system refuses) answers 409, never 500. Each write holds its note's lock
(``Core.note_locks``) from its checks to its graph write, so concurrent writes to one note
apply one after the other; what a write may touch (no symbolic links, no case variants, no
ignored places) is ``vault_write``'s policy. The writes themselves are ``serving.writes``,
which the MCP write tools call too; these routes map its results to HTTP. Its refusals, like
every KnotworkError, reach the app's handler (``api.app``): one status table, one body shape.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import unquote_to_bytes

from fastapi import APIRouter, Body, Depends, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.convertors import Convertor, register_url_convertor

from knotwork.api.deps import Authorized, CoreDep, WritersDep
from knotwork.api.limits import RETRY_AFTER_S
from knotwork.api.responses import GUARDED, WITH_BODY, Problems, Refusal, refusals
from knotwork.retrieve.notes import note_detail, search_notes, vault_stats
from knotwork.serving import writes as note_writes
from knotwork.serving.bodies import (
    Accepted,
    Ingested,
    Journaled,
    NoteDetail,
    NoteFound,
    NoteSearch,
    VaultStats,
    ingested,
)
from knotwork.serving.writes import WriteResult


class NotePath(Convertor[str]):
    """A note's path: Starlette's ``path`` convertor, newlines included. Its ``.*`` stops at a
    newline and the route's ``$`` matches before a final one, so ``nl.md%0A`` reached
    ``nl.md``; whole, the path is refused by the vault's rule for control characters (422)."""

    regex = "(?s:.*)"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("notepath", NotePath())


def utf8_path(request: Request) -> None:
    """A note's path must be UTF-8 once its %-escapes are decoded: the server reads bytes that
    are not as U+FFFD, so "%ff.md" and "%fe.md" would both write or delete the note named
    "\ufffd.md", which no one asked for."""
    raw: bytes | None = request.scope.get("raw_path")
    try:
        unquote_to_bytes(raw or b"").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HTTPException(
            422,
            f"the request path is not UTF-8 once its %-escapes are decoded (byte {exc.start}); "
            "percent-encode the note's path as UTF-8",
        ) from exc


router = APIRouter(prefix="", tags=["notes"], dependencies=[Authorized, Depends(utf8_path)])


MarkdownBody = Annotated[str, Body(media_type="text/markdown", examples=["# Title\n\nText."])]


def _empty_on_purpose(request: Request) -> bool:
    """An empty body sent as one (``Content-Length: 0`` and a type a PUT takes, or the JSON
    string ``""``, as MCP's upsert_note takes one), not a body a client forgot: that would
    empty the note."""
    headers = request.headers
    kind = headers.get("content-type", "").partition(";")[0].strip().lower()
    length = headers.get("content-length", "")
    # A JSON body may also be bytes that decode to "" (the JSON string ""); no Content-Length
    # at all is a body left out, whatever the type. Only the two types a PUT takes: another
    # (text/plain, a form) with no body passes the guard's body-type check, which looks at
    # bodies only, and would empty the note.
    if kind == "text/markdown":
        return length == "0"
    return kind == "application/json" and length.isdigit()


def _response(result: WriteResult) -> Ingested | JSONResponse:
    """200 with the ingest's outcome; 202 when someone else ingests it; 503 when the disk
    changed but the graph could not, saying what happened and what will."""
    if result.status == "journaled":
        journaled = Journaled(
            error="GraphUnavailableError",
            path=result.path,
            status="journaled",
            detail=result.detail,
        )
        return JSONResponse(
            journaled.model_dump(mode="json"),
            status_code=503,
            headers={"Retry-After": str(RETRY_AFTER_S)},
        )
    if result.status == "accepted":
        accepted = Accepted(path=result.path, status="accepted", ingested_by=result.ingested_by)
        return JSONResponse(accepted.model_dump(mode="json"), status_code=202)
    assert result.outcome is not None
    return ingested(result.outcome)


@router.get(
    "/notes",
    response_model=NoteSearch,
    summary="Find notes by name, tag or folder",
    operation_id="findNotes",
    responses={
        **refusals(*GUARDED),
        422: {
            "model": Problems | Refusal,
            "description": "a folder outside the vault (`VaultPathError`), an empty tag "
            "(`FilterError`), a limit out of range, or a query parameter unknown or given twice",
        },
    },
    # A parameter it does not take, or one given twice: api/known_query.py, as every route.
)
async def find_notes(
    core: CoreDep,
    text: Annotated[
        str | None,
        Query(max_length=500, description="part of the file name, title or an alias"),
    ] = None,
    tag: Annotated[
        str | None, Query(max_length=100, description="with or without `#`; nested tags match")
    ] = None,
    folder: Annotated[
        str | None, Query(max_length=500, description="only notes under this folder")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=500, description="at most this many")] = 50,
) -> NoteSearch:
    """Every criterion given must hold; none lists the vault's notes, ordered by path. The same
    as the MCP tool ``search_notes`` and ``knotwork search``."""
    rows = await search_notes(core, text, tag=tag, folder=folder, limit=limit)
    return NoteSearch(notes=[NoteFound.model_validate(row) for row in rows])


@router.get(
    "/notes/{path:notepath}",
    response_model=NoteDetail,
    summary="A note's chunks and facts, with provenance",
    operation_id="getNote",
    responses=refusals(*GUARDED, 404, 422),
)
async def get_note(path: str, core: CoreDep) -> dict[str, Any]:
    return await note_detail(core, path)


@router.get(
    "/stats",
    response_model=VaultStats,
    summary="Counts of notes, chunks, entities, facts and pending work",
    operation_id="stats",
    responses=refusals(*GUARDED),
)
async def stats(core: CoreDep) -> dict[str, Any]:
    return await vault_stats(core)


@router.put(
    "/notes/{path:notepath}",
    summary="Write a note into the vault and ingest it",
    response_model=Ingested,
    operation_id="putNote",
    # The body's second form, beside text/markdown: the note's text as one JSON string. Required
    # (an empty note is an empty body sent so); api/app.py drops the parameter's default.
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {"type": "string", "description": "the note's text"},
                    "example": "# Title\n\nText.",
                }
            },
        }
    },
    responses={
        **refusals(*WITH_BODY),
        202: {
            "model": Accepted,
            "description": "written; the watcher, or this server's running sync, ingests it (or "
            "this server's journal replay, when the vault's lease was lost midway)",
        },
        409: {
            "model": Refusal,
            "description": "no vault, or a read-only one; the path goes through a symbolic "
            "link, differs only by case from an existing note, names a folder or lies under a "
            "file; the vault's notes were synced from another folder (`VaultFolderError`); or "
            "a writer that does not watch the files holds the vault (the detail names it); "
            "nothing is written",
        },
        413: {"model": Refusal, "description": "larger than KNOTWORK_MAX_NOTE_BYTES"},
        422: {
            "model": Problems | Refusal,
            "description": "not a note path, or one Knotwork ignores; a body that is not a "
            "note's text; or a query parameter, which it takes none of (the detail says why)",
        },
        507: {"model": Refusal, "description": "no space left on the disk; nothing is written"},
        503: {
            "model": Journaled | Refusal,
            "description": "Neo4j is down: the file is saved and the graph catches up later "
            "(`journaled`), or it was down before anything was written; or the vault folder "
            "cannot be seen (`VaultUnavailableError`: a drive not mounted), nothing written",
        },
    },
)
async def put_note(
    path: str,
    core: CoreDep,
    writers: WritersDep,
    request: Request,
    # An empty body is an empty note, as MCP's upsert_note writes one: FastAPI reads no bytes
    # as no body, so the default stands for it.
    body: MarkdownBody = "",
) -> Ingested | JSONResponse:
    if not body and not _empty_on_purpose(request):
        raise HTTPException(
            422,
            "a PUT carries the note's text as its body; for an empty note, send an empty body "
            "with Content-Type: text/markdown",
        )
    if (problem := note_writes.nul_problem(body)) is not None:  # as a body that is not UTF-8
        raise RequestValidationError([{"type": "body_invalid", "loc": ("body",), "msg": problem}])
    return _response(await note_writes.put_note(core, writers, path, body))


@router.delete(
    "/notes/{path:notepath}",
    summary="Delete a note from the vault and the graph",
    response_model=Ingested,
    operation_id="deleteNote",
    responses={
        **refusals(*GUARDED),
        202: {
            "model": Accepted,
            "description": "deleted; the watcher, or this server's running sync, removes it (or "
            "this server's journal replay, when the vault's lease was lost midway)",
        },
        404: {
            "model": Refusal,
            "description": "no note at exactly this path, in the vault or in the graph",
        },
        409: {
            "model": Refusal,
            "description": "no vault, or a read-only one; the path is a symbolic link; the "
            "vault's notes were synced from another folder (`VaultFolderError`); or a writer "
            "that does not watch the files holds the vault; nothing is deleted",
        },
        422: {
            "model": Problems | Refusal,
            "description": "not a note path, or one Knotwork ignores; or a query parameter, "
            "which it takes none of (the detail says why)",
        },
        503: {
            "model": Journaled | Refusal,
            "description": "Neo4j is down: the file is deleted and the graph catches up "
            "(`journaled`), or it was down before anything was deleted; or the vault folder "
            "cannot be seen (`VaultUnavailableError`: a drive not mounted), nothing deleted",
        },
    },
)
async def delete_note(path: str, core: CoreDep, writers: WritersDep) -> Ingested | JSONResponse:
    return _response(await note_writes.delete_note(core, writers, path))
