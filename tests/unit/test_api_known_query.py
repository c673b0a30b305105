"""The app-wide check of a route's query parameters (api/known_query.py) works out the names a
route takes once, not on every request with a query string: walking the route's dependency
tree each time cost every such request. Its answers stay the same."""

from __future__ import annotations

from typing import Annotated

import pytest
from fastapi import Depends, FastAPI, Query
from fastapi.dependencies.models import Dependant
from fastapi.testclient import TestClient

import knotwork.api.known_query as known_query_module
from knotwork.api.known_query import known_query


def _page(q: Annotated[str | None, Query()] = None) -> str | None:
    return q


def _app() -> FastAPI:
    app = FastAPI(dependencies=[Depends(known_query)])

    @app.get("/items")
    def items(limit: int = 1, q: str | None = Depends(_page)) -> dict[str, object]:
        return {"limit": limit, "q": q}

    return app


def test_a_routes_parameters_are_worked_out_on_its_first_query_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    walked: list[Dependant] = []
    real = known_query_module._taken

    def counting(dependant: Dependant) -> list[str]:
        walked.append(dependant)
        return real(dependant)

    monkeypatch.setattr(known_query_module, "_taken", counting)
    client = TestClient(_app())
    assert client.get("/items").json() == {"limit": 1, "q": None}  # no query: nothing walked
    assert walked == []
    for _ in range(3):
        assert client.get("/items?limit=2&q=x").json() == {"limit": 2, "q": "x"}
    refused = client.get("/items?bogus=1")
    assert refused.status_code == 422
    assert refused.json()["detail"] == (
        "unknown query parameter 'bogus'; GET /items takes limit, q"
    )
    twice = client.get("/items?q=a&q=b")
    assert twice.json()["detail"] == "query parameter 'q' is given more than once"
    # The route's own tree (its endpoint's dependant) once, and its dependency's with it.
    routes = [d for d in walked if d.call is not None and d.call.__name__ == "items"]
    assert len(routes) == 1, walked
