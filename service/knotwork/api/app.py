"""FastAPI app factory: the lifespan opens one Core, readies the schema, replays the REST
writes the graph has not caught up with (``serving.writers``) and extracts the chunks they left
pending (``serving.extraction``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from knotwork import __version__, background
from knotwork.api.body import BodyScreen, validation_error
from knotwork.api.docs import add_docs
from knotwork.api.guard import RequestGuard
from knotwork.api.known_query import known_query
from knotwork.api.limits import RETRY_AFTER_S, WorkLimiter
from knotwork.api.routes import health, notes, query, sync
from knotwork.core import open_core
from knotwork.errors import (
    ConfigError,
    FilterError,
    GraphUnavailableError,
    KnotworkError,
    LeaseHeldError,
    ManifestMismatchError,
    ModelUnavailableError,
    NoteError,
    NoteNotFoundError,
    NoteTooLargeError,
    QueryTimeoutError,
    ServerBusyError,
    StorageFullError,
    VaultFolderError,
    VaultPathError,
    VaultUnavailableError,
    WriteConflictError,
)
from knotwork.ingest import rehearse
from knotwork.ingest.journal import settings_journal
from knotwork.redact import redact
from knotwork.serving.writers import VaultWriters
from knotwork.settings import Settings, get_settings

log = logging.getLogger(__name__)

# How each core error reaches an HTTP client: the one table, for every route (a subclass
# listed before its base where their codes differ; LeaseLostError is a LeaseHeldError, 409).
_STATUS = {
    ConfigError: 500,
    GraphUnavailableError: 503,
    QueryTimeoutError: 504,
    ModelUnavailableError: 503,
    ManifestMismatchError: 409,
    LeaseHeldError: 409,
    VaultPathError: 422,
    FilterError: 422,
    VaultUnavailableError: 503,
    VaultFolderError: 409,
    NoteTooLargeError: 413,
    NoteError: 422,
    NoteNotFoundError: 404,
    WriteConflictError: 409,
    StorageFullError: 507,
    ServerBusyError: 503,
}


class KnotworkApi(FastAPI):
    """FastAPI, with an OpenAPI document that says what its generator cannot."""

    def openapi(self) -> dict[str, Any]:
        if self.openapi_schema is None:
            spec = super().openapi()
            # PUT's body parameter defaults to "" so that no bytes read is an empty note (sent
            # on purpose, routes/notes.py checks); to a client the body is required, no default.
            put = spec["paths"]["/notes/{path}"]["put"]["requestBody"]["content"]
            put["text/markdown"]["schema"].pop("default", None)
        return self.openapi_schema or {}


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    settings.check_api_exposure()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with open_core(settings) as core:
            await core.ensure_ready()
            # /health answers at once; the model clients load meanwhile, for the first query.
            warm_up = core.models.warm_up_in_background()
            rehearsal = rehearse.start(core)  # the server plans the writes meanwhile
            app.state.core = core
            app.state.limiter = WorkLimiter(settings.api_max_concurrent, settings.api_max_waiting)
            # REST writes the graph has not caught up with are replayed in the background.
            app.state.writers = writers = VaultWriters(core, settings_journal(settings))
            replaying = asyncio.create_task(writers.replay_forever())
            # The chat model's work the direct writes leave pending, beside them.
            extracting = asyncio.create_task(writers.extraction.forever())
            log.info("knotwork %s ready on Neo4j %s", __version__, redact(settings.neo4j_uri))
            try:
                yield
            finally:
                warm_up.cancel()
                try:
                    await background.stop(rehearsal, replaying, extracting)
                finally:  # not waiting for the model: its chunks stay pending
                    await writers.extraction.stop()

    app = KnotworkApi(
        title="Knotwork",
        version=__version__,
        summary="A Markdown vault as a live knowledge graph in Neo4j, with cited answers.",
        lifespan=lifespan,
        docs_url=None,  # add_docs serves them from local assets
        redoc_url=None,
        # Before each route's own: a query parameter it does not take is refused, not dropped.
        dependencies=[Depends(known_query)],
    )
    add_docs(app)

    @app.exception_handler(KnotworkError)
    async def _knotwork_error(_: Request, exc: KnotworkError) -> JSONResponse:
        status = next((code for kind, code in _STATUS.items() if isinstance(exc, kind)), 500)
        # A dependency that is down or busy may be back soon: say when to retry.
        retry = {"Retry-After": str(RETRY_AFTER_S)} if status == 503 else None
        return JSONResponse(
            {"error": type(exc).__name__, "detail": redact(str(exc))},
            status_code=status,
            headers=retry,
        )

    app.add_exception_handler(RequestValidationError, validation_error)
    # The last added runs first: a request meets RequestGuard (Host, Origin, the key for a
    # body or the docs, body type), then BodyScreen (size, then well-formed JSON or UTF-8),
    # then the routes.
    app.add_middleware(BodyScreen, settings=settings)
    app.add_middleware(RequestGuard, settings=settings)

    app.include_router(health.router)
    app.include_router(notes.router)
    app.include_router(sync.router)
    app.include_router(query.router)
    return app
