"""The error bodies routes answer with, each described once, so the OpenAPI schema says for
every route the refusals it can give and no other (schemathesis checks them, a generated client
decodes them)."""

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


_REFUSALS: dict[int, dict[str, Any]] = {
    401: {"model": Refusal, "description": "missing or wrong `X-API-Key` (when a key is set)"},
    403: {"model": Refusal, "description": "a cross-site request (foreign `Origin`)"},
    404: {
        "model": Refusal,
        "description": "no note at exactly this path; the detail names those of the same file "
        "name, title or alias, if any",
    },
    409: {"model": Refusal, "description": "a read-only vault, or another writer's lease"},
    413: {"model": Refusal, "description": "the body is larger than its limit"},
    415: {"model": Refusal, "description": "the body is not `application/json` or Markdown"},
    421: {"model": Refusal, "description": "a `Host` this server does not answer to"},
    422: {
        "model": Problems | Refusal,
        "description": "the request is not valid (a query parameter the route does not take, "
        "or one given twice, on every route)",
    },
    503: {
        "model": Refusal,
        "description": "Neo4j or the model is down, or the server is busy (`Retry-After`)",
    },
}
# Every route that needs the key may answer these (RequestGuard, Authorized, a Neo4j down,
# an unknown query parameter: api/known_query.py).
GUARDED = (401, 403, 421, 422, 503)
# And a route that takes a body these (BodyScreen, the guard's body type, its validation).
WITH_BODY = (*GUARDED, 413, 415, 422)


def refusals(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The shared refusals ``codes``, for a route's ``responses`` (beside its own)."""
    return {code: _REFUSALS[code] for code in codes}
