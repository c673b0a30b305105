"""REST writes for clients that are not the file system: put, delete, sync.

The file in the vault stays the truth: a PUT writes it atomically, then ingests it — unless a
watcher holds the vault's lease, in which case the watcher ingests it (202) and this process
writes nothing to the graph, so two writers never race. A read-only vault (the setting, a
folder without write permission, or a write the file system refuses) answers 409, never 500.
Each write holds its note's lock (``Core.note_locks``) from its checks to its graph write, so
concurrent writes to one note apply one after the other; what a write may touch (no symbolic
links, no case variants, no ignored places) is ``vault_write``'s policy.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, status
from fastapi.responses import JSONResponse

from knotwork.api.deps import Authorized, CoreDep
from knotwork.core import Core
from knotwork.errors import NoteError, NoteNotFoundError, VaultPathError, WriteConflictError
from knotwork.ingest import Ingestor, NoteOutcome
from knotwork.lease import Lease, lease_status
from knotwork.notes import note_detail, vault_stats
from knotwork.sync import sync_vault
from knotwork.vault import decode
from knotwork.vault_write import (
    case_variants,
    delete_note_file,
    exists_exactly,
    note_target,
    refuse_case_variants,
    write_note_file,
)

router = APIRouter(prefix="", tags=["notes"], dependencies=[Authorized])

MarkdownBody = Annotated[str, Body(media_type="text/markdown", examples=["# Title\n\nText."])]


def _vault(core: Core) -> Path:
    root = core.settings.vault_path
    if root is None or not root.is_dir():
        raise HTTPException(
            status.HTTP_409_CONFLICT, "no vault folder is configured (KNOTWORK_VAULT_PATH)"
        )
    return root


def _note_file(root: Path, path: str) -> tuple[str, Path]:
    with _as_http():
        return note_target(root, path)


@contextlib.contextmanager
def _as_http() -> Iterator[None]:
    """A path the vault policy refuses: 422 for the path itself, 409 for a conflict with what
    the vault holds (a symlink, a case variant, a folder in the way), 404 for no such note."""
    try:
        yield
    except VaultPathError as exc:
        raise HTTPException(422, str(exc)) from exc
    except WriteConflictError as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from exc
    except NoteNotFoundError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from exc


# A write the file system refuses because of the mount or permissions, not because of a bug.
_READ_ONLY_ERRNOS = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})


def _read_only(reason: str) -> HTTPException:
    return HTTPException(
        status.HTTP_409_CONFLICT,
        f"the vault is read-only here ({reason}), so REST writes are refused; edit the files "
        "directly (the watcher follows them), or mount the vault writable and set "
        "KNOTWORK_VAULT_READ_ONLY=false",
    )


def _writable(core: Core, root: Path) -> None:
    if core.settings.vault_read_only:
        raise _read_only("KNOTWORK_VAULT_READ_ONLY is set")
    if not os.access(root, os.W_OK):
        raise _read_only("no write permission on the vault folder")


@contextlib.contextmanager
def _refused_as_409() -> Iterator[None]:
    """A write refused by the file system (read-only mount, permissions) becomes the 409."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in _READ_ONLY_ERRNOS:
            raise
        raise _read_only(f"the file system refused the write: {exc.strerror}") from exc


async def _watched(core: Core) -> dict[str, Any] | None:
    lease = await lease_status(core.store, core.settings.vault_name)
    return lease if lease and lease["live"] else None


def _outcome(outcome: NoteOutcome) -> dict[str, Any]:
    return {
        "path": outcome.path,
        "status": outcome.status,
        "chunks": outcome.chunks,
        "embedded": outcome.embedded,
        "facts": dict(outcome.facts),
        "added": outcome.added,
        "removed": outcome.removed,
        "warnings": outcome.warnings,
    }


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
        202: {"description": "written; the watcher ingests it"},
        409: {
            "description": "no vault, or a read-only one; or the path goes through a symbolic "
            "link, differs only by case from an existing note, names a folder or lies under a "
            "file (the detail names it)"
        },
        413: {"description": "larger than KNOTWORK_MAX_NOTE_BYTES"},
        422: {"description": "not a note path, or one Knotwork ignores (the detail says why)"},
    },
)
async def put_note(path: str, body: MarkdownBody, core: CoreDep) -> JSONResponse:
    root = _vault(core)
    rel, full = _note_file(root, path)
    data = body.encode("utf-8")
    try:
        decode(data, rel, core.settings.max_note_bytes)
    except NoteError as exc:
        code = 413 if "limit" in str(exc) else 422
        raise HTTPException(code, str(exc)) from exc
    _writable(core, root)
    async with core.note_locks.hold(rel):  # from the checks to the graph write: no interleaving
        with _as_http():
            refuse_case_variants(
                rel, await case_variants(core.store, core.settings.vault_name, root, rel)
            )
            with _refused_as_409():
                write_note_file(root, rel, full, data)
        if (watcher := await _watched(core)) is not None:
            return JSONResponse(
                {"path": rel, "status": "accepted", "ingested_by": watcher["holder"]},
                status_code=202,
            )
        outcome = await Ingestor(core, root=root).upsert_text(rel, body, full.stat().st_mtime)
    return JSONResponse(_outcome(outcome))


@router.delete(
    "/notes/{path:path}",
    summary="Delete a note from the vault and the graph",
    responses={
        202: {"description": "deleted; the watcher removes its facts"},
        404: {"description": "no note at exactly this path in the vault"},
        409: {"description": "no vault, or a read-only one; or the path is a symbolic link"},
        422: {"description": "not a note path, or one Knotwork ignores (the detail says why)"},
    },
)
async def delete_note(path: str, core: CoreDep) -> JSONResponse:
    root = _vault(core)
    rel, full = _note_file(root, path)
    async with core.note_locks.hold(rel):
        if not exists_exactly(full):
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"no note {rel!r} in the vault")
        _writable(core, root)
        with _as_http(), _refused_as_409():
            delete_note_file(rel, full)
        if (watcher := await _watched(core)) is not None:
            return JSONResponse(
                {"path": rel, "status": "accepted", "ingested_by": watcher["holder"]},
                status_code=202,
            )
        outcome = await Ingestor(core, root=root).delete(rel)
    return JSONResponse(_outcome(outcome))


@router.post("/sync", summary="Bring the graph in step with the whole vault folder")
async def sync(core: CoreDep) -> JSONResponse:
    root = _vault(core)
    lease = Lease(core.store, core.settings.vault_name, core.settings.lease_ttl_s)
    await lease.acquire({"mode": "rest-sync"})  # LeaseHeldError → 409 with the holder named
    try:
        report = await sync_vault(Ingestor(core, root=root))
    finally:
        await lease.release()
    return JSONResponse(
        {
            "notes": report.notes,
            "written": report.written,
            "unchanged": report.unchanged,
            "moved": report.renamed,
            "deleted": report.deleted,
            "facts": dict(report.facts),
            "warnings": report.warnings,
            "errors": report.errors,
        }
    )
