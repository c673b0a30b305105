"""Every route's success responses are typed in the OpenAPI schema: a client generated from
``/openapi.json`` (or schemathesis) knows each body's fields, not just "some JSON"."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from knotwork.api import create_app
from knotwork.api import routes as routes_package
from tests.conftest import make_settings

# The interactive docs' pages, served apart from the API (``api.docs``).
DOCS = {"/docs", "/docs/oauth2-redirect", "/redoc"}
# Responses other than 200 that a route answers on success, or with a body of its own.
OWN_BODIES = {
    ("PUT", "/notes/{path}"): {"202": "Accepted", "503": "Journaled"},
    ("DELETE", "/notes/{path}"): {"202": "Accepted", "503": "Journaled"},
}


def _app() -> FastAPI:
    return create_app(make_settings(api_allowed_hosts=["testserver"]))


def _openapi() -> dict[str, Any]:
    # Served as a client gets it; no lifespan (and no Neo4j) is needed for the schema.
    response = TestClient(_app()).get("/openapi.json")
    assert response.status_code == 200
    schema: dict[str, Any] = response.json()
    return schema


def _routes() -> list[APIRoute]:
    """The app's own routes, and those of every router under ``knotwork.api.routes``."""
    found = [r for r in _app().routes if isinstance(r, APIRoute) and r.path not in DOCS]
    for module in pkgutil.iter_modules(routes_package.__path__):
        router = importlib.import_module(f"{routes_package.__name__}.{module.name}").router
        found += [r for r in router.routes if isinstance(r, APIRoute)]
    return found


def _models(schema: dict[str, Any], components: dict[str, Any]) -> list[dict[str, Any]]:
    """The object schemas a response schema stands for: a ``$ref``, or each of an ``anyOf``."""
    if "$ref" in schema:
        return _models(components[schema["$ref"].rsplit("/", 1)[-1]], components)
    if "anyOf" in schema:
        return [m for option in schema["anyOf"] for m in _models(option, components)]
    return [schema]


def _json_schema(response: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = (
        response.get("content", {}).get("application/json", {}).get("schema", {})
    )
    return schema


def test_every_route_declares_a_typed_body_for_its_success_responses() -> None:
    spec = _openapi()
    components = spec["components"]["schemas"]
    routes = [r for r in _routes() if r.include_in_schema]
    assert len(routes) == 9, [r.path for r in routes]
    untyped = []
    for route in routes:
        path = route.path_format  # as OpenAPI spells it, without the convertor
        for method in route.methods:
            operation = spec["paths"][path][method.lower()]
            successes = {code: r for code, r in operation["responses"].items() if code[0] == "2"}
            assert successes, f"{method} {path} declares no success response"
            for code, response in successes.items():
                models = _models(_json_schema(response), components)
                # An untyped body is ``{}`` (any JSON) or an object with no declared fields.
                if not all(m.get("properties") for m in models):
                    untyped.append(f"{method} {path} {code}")
    assert untyped == [], f"success responses without a typed body: {untyped}"


def test_accepted_and_journaled_writes_declare_their_own_bodies() -> None:
    spec = _openapi()
    components = spec["components"]["schemas"]
    for (method, path), bodies in OWN_BODIES.items():
        responses = spec["paths"][path][method.lower()]["responses"]
        for code, model in bodies.items():
            declared = _json_schema(responses[code])
            refs = [declared.get("$ref")] + [o.get("$ref") for o in declared.get("anyOf", [])]
            assert f"#/components/schemas/{model}" in refs, (method, path, code, declared)
            assert components[model]["properties"]["status"]["const"] in ("accepted", "journaled")


def test_every_refusal_a_route_declares_has_a_typed_body() -> None:
    """A generated client decodes a 409 or a 422 as it decodes a 200: every 4xx and 5xx a
    route declares names its body (a route's own description must not drop the shared one)."""
    spec = _openapi()
    components = spec["components"]["schemas"]
    untyped = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            for code, response in operation["responses"].items():
                if code[0] in "45" and not all(
                    m.get("properties") for m in _models(_json_schema(response), components)
                ):
                    untyped.append(f"{method.upper()} {path} {code}")
    assert untyped == [], f"refusals without a typed body: {untyped}"


def test_a_note_is_put_as_markdown_or_as_a_json_string() -> None:
    body = _openapi()["paths"]["/notes/{path}"]["put"]["requestBody"]["content"]
    assert set(body) == {"text/markdown", "application/json"}
    assert body["application/json"]["schema"]["type"] == "string"


def test_a_note_body_is_required_and_has_no_default() -> None:
    """A generator makes a body with a default optional: a client could PUT nothing and empty
    the note (the route refuses that, but the client's type should not allow it)."""
    body = _openapi()["paths"]["/notes/{path}"]["put"]["requestBody"]
    assert body["required"] is True
    for content in body["content"].values():
        assert "default" not in content["schema"], content


def test_operation_ids_are_short_and_stable() -> None:
    operations = {
        (method.upper(), path): operation.get("operationId")
        for path, methods in _openapi()["paths"].items()
        for method, operation in methods.items()
    }
    assert operations == {
        ("GET", "/health"): "health",
        ("GET", "/notes"): "findNotes",
        ("GET", "/notes/{path}"): "getNote",
        ("PUT", "/notes/{path}"): "putNote",
        ("DELETE", "/notes/{path}"): "deleteNote",
        ("GET", "/stats"): "stats",
        ("POST", "/sync"): "sync",
        ("POST", "/query"): "query",
        ("POST", "/retrieve"): "retrieve",
    }


def test_each_route_declares_only_the_refusals_it_can_give() -> None:
    paths = _openapi()["paths"]

    def codes(method: str, path: str) -> set[str]:
        return {c for c in paths[path][method]["responses"] if c[0] in "45"}

    # No note to miss, nothing to write, no body to refuse; a query parameter, as every route.
    assert codes("get", "/stats") == {"401", "403", "421", "422", "503"}
    assert codes("get", "/health") == {"403", "421", "422", "503"}
    # A question's read past KNOTWORK_NEO4J_QUERY_TIMEOUT_S is a 504 (QueryTimeoutError).
    asked = {"401", "403", "409", "413", "415", "421", "422", "503", "504"}
    assert codes("post", "/retrieve") == asked
    assert codes("post", "/query") == codes("post", "/retrieve")
    assert codes("get", "/notes") == {"401", "403", "421", "422", "503"}
    assert codes("get", "/notes/{path}") == {"401", "403", "404", "421", "422", "503"}
    assert {"404", "409"} <= codes("delete", "/notes/{path}") and "413" not in codes(
        "delete", "/notes/{path}"
    )
    assert {"409", "413", "415", "507"} <= codes("put", "/notes/{path}")
    assert "404" not in codes("put", "/notes/{path}")


def test_health_is_open_and_every_other_route_needs_the_key() -> None:
    """OpenAPI's empty requirement ``{}`` says a caller may send no key: a generated client
    calls /health without one (and gets the details with one)."""
    for path, methods in _openapi()["paths"].items():
        for method, operation in methods.items():
            security = operation.get("security", [])
            assert {"APIKeyHeader": []} in security, (method, path)
            assert ({} in security) == (path == "/health"), (method, path, security)
