"""The error bodies every route may answer with, documented once for the whole API so the
OpenAPI schema describes every response a client can get (and schemathesis can check them)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class Refusal(BaseModel):
    """An error with one message (a Knotwork error also names its kind in ``error``)."""

    detail: str
    error: str | None = None


class Problem(BaseModel):
    type: str
    loc: list[str | int]
    msg: str
    input: Any = None


class Problems(BaseModel):
    """What was wrong with the request, one entry per problem (FastAPI's shape)."""

    detail: list[Problem]


COMMON_RESPONSES: dict[int | str, dict[str, Any]] = {
    401: {"model": Refusal, "description": "missing or wrong `X-API-Key` (when a key is set)"},
    403: {"model": Refusal, "description": "a cross-site request (foreign `Origin`)"},
    404: {"model": Refusal, "description": "no such note"},
    409: {"model": Refusal, "description": "a read-only vault, or another writer's lease"},
    413: {"model": Refusal, "description": "the body is larger than its limit"},
    415: {"model": Refusal, "description": "the body is not `application/json` or Markdown"},
    421: {"model": Refusal, "description": "a `Host` this server does not answer to"},
    422: {"model": Problems | Refusal, "description": "the request is not valid"},
    503: {
        "model": Refusal,
        "description": "Neo4j or the model is down, or the server is busy (`Retry-After`)",
    },
}
