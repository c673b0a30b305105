"""``GET /health``: Neo4j, its indexes, the model servers and their models, and the manifest.

Open to every caller, as load balancers and compose health checks call it without a key; with
an API key set, a caller without it learns only ready or not (``{"ok": …}``), never versions,
addresses, index names or the watcher's host.
"""

from __future__ import annotations

from fastapi import APIRouter, Response
from pydantic import BaseModel

from knotwork.api.deps import CoreDep, KeyGiven
from knotwork.check.health import HealthReport, check_health

router = APIRouter(tags=["health"])


class Readiness(BaseModel):
    """What a caller without the API key is told."""

    ok: bool


@router.get(
    "/health",
    response_model=HealthReport | Readiness,
    responses={
        503: {"model": HealthReport | Readiness, "description": "a dependency is not ready"}
    },
    summary="Readiness of Neo4j, the model servers and the manifest (details only with a key)",
)
async def health(core: CoreDep, keyed: KeyGiven, response: Response) -> HealthReport | Readiness:
    report = await check_health(core)
    response.status_code = 200 if report.ok else 503
    return report if keyed else Readiness(ok=report.ok)
