"""Request dependencies: the shared core and the API key check."""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import APIKeyHeader

from knotwork.core import Core


def get_core(request: Request) -> Core:
    core: Core = request.app.state.core
    return core


CoreDep = Annotated[Core, Depends(get_core)]

_api_key_header = APIKeyHeader(name="X-API-Key", auto_error=False)


def require_api_key(core: CoreDep, key: Annotated[str | None, Depends(_api_key_header)]) -> None:
    """When an API key is configured, every protected route needs it in ``X-API-Key``."""
    expected = core.settings.api_key
    if expected is None:
        return
    if key is None or not secrets.compare_digest(key, expected.get_secret_value()):
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            detail="missing or wrong X-API-Key header",
            headers={"WWW-Authenticate": "APIKey"},
        )


Authorized = Depends(require_api_key)
