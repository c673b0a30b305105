"""The REST routes' handle on the app's ``WorkLimiter`` (``knotwork.limits``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from knotwork.limits import RETRY_AFTER_S, WorkLimiter

__all__ = ["RETRY_AFTER_S", "LimiterDep", "WorkLimiter", "get_limiter"]


def get_limiter(request: Request) -> WorkLimiter:
    limiter: WorkLimiter = request.app.state.limiter
    return limiter


LimiterDep = Annotated[WorkLimiter, Depends(get_limiter)]
