"""Request dependencies: the shared core, the vault's writers and the API key check."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import APIKeyHeader

from knotwork.api.guard import key_matches
from knotwork.core import Core
from knotwork.serving.writers import VaultWriters


def get_core(request: Request) -> Core:
    core: Core = request.app.state.core
    return core


CoreDep = Annotated[Core, Depends(get_core)]


def get_writers(request: Request) -> VaultWriters:
    writers: VaultWriters = request.app.state.writers
    return writers


WritersDep = Annotated[VaultWriters, Depends(get_writers)]

_api_key_header = APIKeyHeader(name="X-API-Key", auto_error=False)
ApiKeyDep = Annotated[str | None, Depends(_api_key_header)]


def has_api_key(core: CoreDep, key: ApiKeyDep) -> bool:
    """Whether the request carries the configured key (True when none is configured)."""
    return key_matches(core.settings.api_key, key)


KeyGiven = Annotated[bool, Depends(has_api_key)]


def require_api_key(given: KeyGiven) -> None:
    """When an API key is configured, every protected route needs it in ``X-API-Key``."""
    if not given:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            detail="missing or wrong X-API-Key header",
            headers={"WWW-Authenticate": "APIKey"},
        )


Authorized = Depends(require_api_key)
