"""The API's docs pages, served with Swagger UI and ReDoc assets installed with the package.

FastAPI's own pages load their scripts from a CDN, so offline (or behind a firewall) they are
blank. The assets come from ``fastapi-offline``'s static folder; only its files are used.
"""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.staticfiles import StaticFiles
from starlette.requests import Request
from starlette.responses import HTMLResponse

ASSETS_URL = "/docs-assets"
_ASSETS = Path(fastapi_offline.__file__).parent / "static"


def add_docs(app: FastAPI) -> None:
    """``/docs`` (Swagger UI) and ``/redoc`` on ``app``, made with ``docs_url=None`` and
    ``redoc_url=None``, from local assets under ``ASSETS_URL``."""
    app.mount(ASSETS_URL, StaticFiles(directory=_ASSETS), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"
    oauth2_url = app.swagger_ui_oauth2_redirect_url or "/docs/oauth2-redirect"

    def asset(request: Request, name: str) -> str:
        return f"{request.scope.get('root_path', '')}{ASSETS_URL}/{name}"

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=f"{request.scope.get('root_path', '')}{openapi_url}",
            title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=oauth2_url,
            swagger_js_url=asset(request, "swagger-ui-bundle.js"),
            swagger_css_url=asset(request, "swagger-ui.css"),
            swagger_favicon_url=asset(request, "favicon.png"),
        )

    @app.get(oauth2_url, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        return get_redoc_html(
            openapi_url=f"{request.scope.get('root_path', '')}{openapi_url}",
            title=f"{app.title} - ReDoc",
            redoc_js_url=asset(request, "redoc.standalone.js"),
            redoc_favicon_url=asset(request, "favicon.png"),
            with_google_fonts=False,
        )
