"""POST /sync: bring the graph in step with the whole vault folder, under the vault's lease."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from knotwork.api.deps import Authorized, CoreDep, WritersDep
from knotwork.api.note_writes import sync_all

router = APIRouter(prefix="", tags=["notes"], dependencies=[Authorized])


@router.post("/sync", summary="Bring the graph in step with the whole vault folder")
async def sync(core: CoreDep, writers: WritersDep) -> JSONResponse:
    # No vault: WriteConflictError → 409. A sync already running here, or another holder of
    # the lease: LeaseHeldError → 409 naming the holder; a lease lost meanwhile stops the sync
    # with LeaseLostError, also 409.
    return JSONResponse(await sync_all(core, writers))
