"""POST /sync: bring the graph in step with the whole vault folder, under the vault's lease."""

from __future__ import annotations

from fastapi import APIRouter

from knotwork.api.deps import Authorized, CoreDep, WritersDep
from knotwork.api.note_schemas import Synced
from knotwork.api.note_writes import sync_all

router = APIRouter(prefix="", tags=["notes"], dependencies=[Authorized])


@router.post(
    "/sync",
    response_model=Synced,
    summary="Bring the graph in step with the whole vault folder",
)
async def sync(core: CoreDep, writers: WritersDep) -> Synced:
    # No vault: WriteConflictError → 409. A sync already running here, or another holder of
    # the lease: LeaseHeldError → 409 naming the holder; a lease lost meanwhile stops the sync
    # with LeaseLostError, also 409.
    return await sync_all(core, writers)
