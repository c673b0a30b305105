"""``GET /health``: Neo4j, its indexes, Ollama and its models, and the manifest."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from knotwork.api.deps import CoreDep
from knotwork.health import HealthReport, check_health

router = APIRouter(tags=["health"])


@router.get(
    "/health",
    response_model=HealthReport,
    responses={503: {"model": HealthReport, "description": "a dependency is not ready"}},
    summary="Readiness of Neo4j, Ollama and the manifest",
)
async def health(core: CoreDep) -> JSONResponse:
    report = await check_health(core)
    return JSONResponse(report.model_dump(mode="json"), status_code=200 if report.ok else 503)
