"""``GET /health``: Neo4j, its indexes, the model servers and their models, and the manifest.

Open to every caller, as load balancers and compose health checks call it without a key; with
an API key set, a caller without it learns only ready or not (``{"ok": …}``), never versions,
addresses, index names or the watcher's host. A report is shared for ``REPORT_TTL_S``, and
by callers that ask while it is being made, so a flood of calls runs the check once.
"""

from __future__ import annotations

import asyncio
import time
from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel

from knotwork.api.deps import CoreDep, KeyGiven
from knotwork.api.limits import RETRY_AFTER_S
from knotwork.api.responses import refusals
from knotwork.check.health import check_health
from knotwork.check.reports import HealthReport
from knotwork.core import Core
from knotwork.serving.writers import SERVER

router = APIRouter(tags=["health"])

# How long a report is served again: /health needs no key and takes no work slot, so a flood
# of calls must not each run the check (Neo4j queries, calls to the model servers).
REPORT_TTL_S = 2.0


class SharedCheck:
    """The last report (or the error the check ended in), served for ``REPORT_TTL_S``; callers
    that find it stale while a check is under way wait for that check rather than start their
    own."""

    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self._last: HealthReport | Exception | None = None
        self._made = 0.0  # monotonic time the report was made

    def _fresh(self) -> HealthReport | None:
        if self._last is None or time.monotonic() - self._made >= REPORT_TTL_S:
            return None
        if isinstance(self._last, Exception):  # the same failure, not a queue of checks
            raise self._last
        return self._last

    async def report(self, core: Core) -> HealthReport:
        if (report := self._fresh()) is not None:
            return report
        async with self._lock:
            if (report := self._fresh()) is not None:  # made while this caller waited
                return report
            try:
                report = await check_health(core, SERVER)  # its passes do what waits
            except Exception as exc:
                self._last, self._made = exc, time.monotonic()
                raise
            self._last, self._made = report, time.monotonic()
            return report


def shared_check(request: Request) -> SharedCheck:
    """The app's one SharedCheck, made by the first call (no await in between: no race)."""
    state = request.app.state
    shared: SharedCheck | None = getattr(state, "health_check", None)
    if shared is None:
        shared = state.health_check = SharedCheck()
    return shared


class Readiness(BaseModel):
    """What a caller without the API key is told."""

    ok: bool


@router.get(
    "/health",
    response_model=HealthReport | Readiness,
    operation_id="health",
    # Open: a caller may send no key at all (OpenAPI's empty requirement), beside the key that
    # brings the details.
    openapi_extra={"security": [{}]},
    responses={
        **refusals(403, 421, 422),  # 422: a query parameter (it takes none)
        503: {"model": HealthReport | Readiness, "description": "a dependency is not ready"},
    },
    summary="Readiness of Neo4j, the model servers and the manifest (details only with a key)",
)
async def health(
    core: CoreDep,
    keyed: KeyGiven,
    shared: Annotated[SharedCheck, Depends(shared_check)],
    response: Response,
) -> HealthReport | Readiness:
    report = await shared.report(core)
    response.status_code = 200 if report.ok else 503
    if not report.ok:  # a dependency starting or away: say when to ask again, as other routes do
        response.headers["Retry-After"] = str(RETRY_AFTER_S)
    return report if keyed else Readiness(ok=report.ok)
