"""Request bodies take JSON's own types, as the schema says: a string where a number is meant
is a 422 naming the field, what it wants and what came — never read as the number it spells."""

from __future__ import annotations

import asyncio
import json
from datetime import date
from typing import Any

import pytest
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from knotwork.api.body import validation_error
from knotwork.api.schemas import FiltersIn, QueryRequest, RetrieveRequest
from tests.fakes.ollama import FakeOllama
from tests.unit.test_api_routes import KEYED, served

WRONG_TYPES = [
    ({"top_k": "3"}, "top_k should be an integer, not a string"),
    ({"top_k": 3.0}, "top_k should be an integer, not a number"),
    ({"top_k": True}, "top_k should be an integer, not true or false"),
    ({"top_k": None}, "top_k should be an integer, not null"),
    ({"question": 42}, "question should be a string, not a number"),
    ({"question": ["Who?"]}, "question should be a string, not a list"),
    ({"filters": None}, "filters should be an object, not null"),
    ({"filters": "People"}, "filters should be an object, not a string"),
    ({"filters": {"folder": 7}}, "filters.folder should be a string, not a number"),
    ({"filters": {"tags": "launch"}}, "filters.tags should be a list, not a string"),
    ({"filters": {"tags": [1]}}, "filters.tags.0 should be a string, not a number"),
    ({"filters": {"date_from": 0}}, "should be an ISO date string yyyy-mm-dd, not a number"),
    ({"filters": {"date_from": "20240101"}}, "should be an ISO date yyyy-mm-dd"),
    ({"filters": {"date_to": "2024-01-01T00:00"}}, "should be an ISO date yyyy-mm-dd"),
    ({"filters": {"date_to": "2024-02-30"}}, "2024-02-30 is not a calendar date"),
]
QUERY_ONLY = [
    ({"stream": "true"}, "stream should be true or false, not a string"),
    ({"stream": 1}, "stream should be true or false, not a number"),
    ({"stream": "false"}, "stream should be true or false, not a string"),
]


@pytest.mark.parametrize(("extra", "says"), WRONG_TYPES + QUERY_ONLY)
def test_a_value_of_another_json_type_is_refused(extra: dict[str, Any], says: str) -> None:
    """Lax parsing took "3" for 3, "false" for False and 0 for 1970-01-01."""
    models = (QueryRequest,) if (extra, says) in QUERY_ONLY else (QueryRequest, RetrieveRequest)
    for model in models:
        with pytest.raises(ValidationError):
            model.model_validate({"question": "Who is Alice?", **extra})


def test_json_types_as_the_schema_says_are_taken() -> None:
    body = QueryRequest.model_validate(
        {
            "question": "Who?",
            "top_k": 3,
            "stream": False,
            "filters": {"date_from": "2024-01-31", "tags": ["#a"], "folder": "People"},
        }
    )
    assert (body.top_k, body.stream, body.filters.date_from) == (3, False, date(2024, 1, 31))
    assert FiltersIn.model_validate({"date_to": None}).date_to is None


@pytest.mark.parametrize(("extra", "says"), WRONG_TYPES + QUERY_ONLY)
async def test_both_routes_say_which_field_wants_what(
    fake_ollama: FakeOllama, extra: dict[str, Any], says: str
) -> None:
    routes = ("/query",) if (extra, says) in QUERY_ONLY else ("/query", "/retrieve")
    async with served(fake_ollama) as client:
        for route in routes:
            body = {"question": "Who is Alice?", **extra}
            response = await client.post(route, json=body, headers=KEYED)
            assert response.status_code == 422, (route, response.text)
            messages = [e["msg"] for e in response.json()["detail"]]
            assert any(says in m for m in messages), (route, messages)


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        ({"top_k": -1}, "greater than or equal to 1"),
        ({"top_k": 10**30}, "less than or equal to 50"),
        ({"question": "x" * 2001}, "at most 2000 characters"),
    ],
)
async def test_bounds_are_clear(fake_ollama: FakeOllama, extra: dict[str, Any], says: str) -> None:
    async with served(fake_ollama) as client:
        response = await client.post("/retrieve", json={"question": "q", **extra}, headers=KEYED)
    assert response.status_code == 422, response.text
    assert says in response.json()["detail"][0]["msg"]


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("tags=team", "unknown query parameter 'tags'; GET /notes takes text, tag, folder, limit"),
        ("dir=People&limit=2", "unknown query parameter 'dir'"),
        ("tag=team&tag=graph", "query parameter 'tag' is given more than once"),
    ],
)
async def test_get_notes_refuses_a_parameter_it_does_not_take(
    fake_ollama: FakeOllama, query: str, says: str
) -> None:
    """A misspelled filter was dropped and every note listed, unfiltered; a repeated one kept
    its last value only. Refused before the graph is read (its Neo4j does not answer here)."""
    async with served(fake_ollama) as client:
        response = await client.get(f"/notes?{query}", headers=KEYED)
    assert response.status_code == 422, response.text
    assert says in response.json()["detail"]


@pytest.mark.parametrize(
    "body",
    [
        '{"question": "Who is Alice?", "top_k": 5, "top_k": 50}',
        '{"question": "Who is Alice?", "filters": {"folder": "a", "folder": "b"}}',
    ],
)
async def test_a_key_twice_in_one_object_is_refused(fake_ollama: FakeOllama, body: str) -> None:
    """The parser kept the last value: the request was answered as one for 50 hits, or for
    folder "b", without a word."""
    async with served(fake_ollama) as client:
        headers = {**KEYED, "Content-Type": "application/json"}
        response = await client.post("/retrieve", content=body, headers=headers)
    assert response.status_code == 422, response.text
    assert "appears twice in one JSON object" in response.json()["detail"][0]["msg"]


async def test_markdown_is_for_a_notes_body_only(fake_ollama: FakeOllama) -> None:
    """A JSON route sent Markdown got FastAPI's raw bytes: a 422 saying "the body should be an
    object, not an object", echoing ``b'…'``. A 415 naming the type the route takes instead."""
    markdown = {**KEYED, "Content-Type": "text/markdown"}
    async with served(fake_ollama) as client:
        for route, body in (("/retrieve", '{"question":"Alice"}'), ("/query", "About Alice?")):
            response = await client.post(route, content=body, headers=markdown)
            assert response.status_code == 415, (route, response.text)
            said = response.json()["detail"]
            assert "'text/markdown' is only for a note's body (PUT /notes/{path})" in said
            assert f"POST {route} takes application/json" in said
            assert "b'" not in response.text
        synced = await client.post("/sync", content="# x", headers=markdown)
        assert synced.status_code == 415 and "POST /sync takes application/json" in synced.text
        put = await client.put("/notes/a.md", content="# a\n", headers=markdown)
        assert put.status_code == 409, put.text  # the route's own answer: no vault folder


def test_a_raw_body_is_named_as_such_and_never_echoed() -> None:
    """Should FastAPI hand a JSON route raw bytes again, the 422 says to send JSON and shows no
    Python bytes repr."""
    error = {"type": "model_attributes_type", "loc": ("body",), "msg": "x", "input": b"{'q'}"}
    response = asyncio.run(validation_error(None, RequestValidationError([error])))  # type: ignore[arg-type]
    [shown] = json.loads(bytes(response.body))["detail"]
    assert (
        shown["msg"] == "the body should be an object sent as JSON (Content-Type: application/json)"
    )
    assert "input" not in shown
