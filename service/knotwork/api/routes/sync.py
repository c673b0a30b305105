"""POST /sync: bring the graph in step with the whole vault folder, under the vault's lease."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.exceptions import RequestValidationError

from knotwork.api.deps import Authorized, CoreDep, WritersDep
from knotwork.api.responses import WITH_BODY, Problems, Refusal, refusals
from knotwork.serving.bodies import Synced
from knotwork.serving.writes import sync_all


async def no_body(request: Request) -> None:
    """``/sync`` has no options: a body (``{"dry_run": true}``, say) was read and dropped, and
    a full sync ran that its client thought it had limited. Refused as ``/query`` refuses an
    unknown field, in the shape of the other body refusals, before anything is synced."""
    if await request.body():
        raise RequestValidationError(
            [
                {
                    "type": "body_invalid",
                    "loc": ("body",),
                    "msg": "POST /sync takes no body: it has no options and always syncs the "
                    "whole vault folder; send the request without one (nothing was synced)",
                }
            ]
        )


router = APIRouter(prefix="", tags=["notes"], dependencies=[Authorized, Depends(no_body)])


@router.post(
    "/sync",
    response_model=Synced,
    operation_id="sync",
    responses={
        **refusals(*WITH_BODY),
        409: {
            "model": Refusal,
            "description": "no vault, a sync already running, or another holder of the "
            "vault's lease (the detail names it)",
        },
        422: {
            "model": Problems | Refusal,
            "description": "a body or a query parameter (`?dry_run=…`): `/sync` takes neither",
        },
    },
    summary="Bring the graph in step with the whole vault folder",
)
async def sync(core: CoreDep, writers: WritersDep) -> Synced:
    # No vault: WriteConflictError → 409. A sync already running here, or another holder of
    # the lease: LeaseHeldError → 409 naming the holder; a lease lost meanwhile stops the sync
    # with LeaseLostError, also 409.
    return await sync_all(core, writers)
