"""Every route in the OpenAPI schema refuses a query parameter it does not take (422 naming it
and the ones the route takes), before it does anything: they were dropped, so
``POST /sync?dry_run=true`` ran a real sync, ``DELETE /notes/x.md?force=1`` deleted,
``POST /retrieve?top_k=1`` answered 8 citations. The parameters a route does take still work."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from knotwork.api import create_app
from knotwork.settings import Settings
from tests.fakes.ollama import FakeOllama
from tests.integration.conftest import Neo4jTarget, put
from tests.integration.test_api_responses import KEY, api_settings

NOTE = "One.md"
# What each operation is sent besides its query: a body it takes, so only the query is wrong.
BODIES: dict[str, dict[str, Any]] = {
    "post /query": {"json": {"question": "Who is One?"}},
    "post /retrieve": {"json": {"question": "Who is One?"}},
    "put /notes/{path}": {"content": "# New\n", "headers": {"Content-Type": "text/markdown"}},
}


@pytest.fixture
def client(
    settings: Settings, vault: Path, empty_db: Neo4jTarget, fake_ollama: FakeOllama
) -> Iterator[TestClient]:
    put(vault, NOTE, "# One\n\nOne works with [[Two]].\n")
    app = create_app(api_settings(settings, vault, extract=False))
    with TestClient(app, headers={"X-API-Key": KEY}) as test_client:
        assert test_client.post("/sync").status_code == 200
        yield test_client


def _send(client: TestClient, method: str, path: str, query: str, **extra: Any) -> Any:
    url = path.replace("{path}", NOTE) + query
    return client.request(method.upper(), url, **{**BODIES.get(f"{method} {path}", {}), **extra})


def test_every_route_refuses_an_unknown_query_parameter_and_does_nothing(
    client: TestClient, vault: Path
) -> None:
    operations = [
        (method, path, operation)
        for path, methods in client.get("/openapi.json").json()["paths"].items()
        for method, operation in methods.items()
    ]
    assert len(operations) >= 8, operations  # health, stats, 4 on notes, sync, query, retrieve
    for method, path, operation in operations:
        taken = [p["name"] for p in operation.get("parameters", []) if p["in"] == "query"]
        response = _send(client, method, path, "?bogus=1")
        said = f"{method.upper()} {path}: {response.status_code} {response.text}"
        assert response.status_code == 422, said
        detail = response.json()["detail"]
        assert detail.startswith("unknown query parameter 'bogus'; "), said
        assert detail.endswith(f"{method.upper()} {path} takes {', '.join(taken)}" if taken else (
            f"{method.upper()} {path} takes no query parameters"
        )), said  # fmt: skip
        # The key is asked for first: a caller without it learns nothing of the route.
        if path != "/health":
            keyless = _send(client, method, path, "?bogus=1", headers={"X-API-Key": "wrong"})
            assert keyless.status_code == 401, f"{method} {path}: {keyless.text}"
    # Nothing was done: no note deleted or written, no sync run.
    assert (vault / NOTE).exists() and not (vault / "New.md").exists()
    (vault / "Later.md").write_text("# Later\n")
    assert client.post("/sync?dry_run=true").status_code == 422
    assert client.get("/notes", params={"text": "Later"}).json()["notes"] == []


def test_the_parameters_a_route_takes_still_work_and_not_twice(client: TestClient) -> None:
    found = client.get("/notes", params={"text": "one", "limit": 5})
    assert found.status_code == 200, found.text
    assert [n["path"] for n in found.json()["notes"]] == [NOTE]
    twice = client.get("/notes?tag=a&tag=b")
    assert twice.status_code == 422 and "'tag' is given more than once" in twice.text
    for route in ("/query", "/retrieve"):  # top_k belongs in the body
        response = client.post(f"{route}?top_k=1", json={"question": "Who is One?"})
        assert response.status_code == 422, (route, response.text)
        assert f"POST {route} takes no query parameters" in response.json()["detail"]
    assert client.get("/health?bogus=1").status_code == 422  # open: no key needed to be told
