"""POST /sync: bring the graph in step with the whole vault folder, under the vault's lease."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from knotwork.api.deps import Authorized, CoreDep, WritersDep
from knotwork.api.vault_http import vault_root
from knotwork.ingest import Ingestor
from knotwork.sync import sync_vault

router = APIRouter(prefix="", tags=["notes"], dependencies=[Authorized])


@router.post("/sync", summary="Bring the graph in step with the whole vault folder")
async def sync(core: CoreDep, writers: WritersDep) -> JSONResponse:
    ingestor = Ingestor(core, root=vault_root(core))
    # The lease is renewed while the sync runs (LeaseHeldError → 409 naming the holder; a lease
    # lost meanwhile stops the sync with LeaseLostError, also 409). Note writes made meanwhile
    # are applied from disk before the lease is given back.
    async with writers.sync():
        report = await sync_vault(ingestor)
        await writers.drain(ingestor)
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
