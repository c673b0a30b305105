"""Request values of JSON's own types, as the schema says, and messages that say what came.

Pydantic's lax mode took ``"3"`` and ``3.0`` for an integer, ``"yes"``, ``"true"`` and ``1``
for a boolean, and ``0`` for the date 1970-01-01 (a number is Unix time to it): a client's
bug answered as if it were the request it meant. The request models (REST bodies, and the MCP
tools, which validate through them) are strict instead; a date is the ISO string
``yyyy-mm-dd`` only. ``type_message`` words a wrong type as what was wanted and what came,
for REST's 422 and MCP's tool errors alike.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Annotated, Any

from pydantic import BeforeValidator, ConfigDict

STRICT = ConfigDict(extra="forbid", strict=True)
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# Pydantic's error types for a value of another type → what the field wants, in JSON's words.
_WANTED = {
    "int_type": "an integer",
    "int_from_float": "an integer",
    "bool_type": "true or false",
    "string_type": "a string",
    "float_type": "a number",
    "list_type": "a list",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
}


def json_kind(value: object) -> str:
    """What a JSON value is, in words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list | tuple) else "an object"


def _iso_date(value: object) -> object:
    """A date as JSON carries it: lax parsing took "20240101" as seconds after 1970 (then
    refused it as "not an exact date", which says nothing of the format)."""
    if value is None or isinstance(value, date):
        return value
    if not isinstance(value, str):
        raise ValueError(f"should be an ISO date string yyyy-mm-dd, not {json_kind(value)}")
    if not _ISO_DATE.fullmatch(value):
        raise ValueError(f"should be an ISO date yyyy-mm-dd, not {value[:40]!r}")
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{value} is not a calendar date") from None


IsoDate = Annotated[date, BeforeValidator(_iso_date)]


def type_message(error: Mapping[str, Any]) -> str:
    """Pydantic's message, or for a value of another JSON type: "should be an integer, not a
    string" (pydantic says "Input should be a valid integer", whatever came)."""
    wanted = _WANTED.get(str(error.get("type")))
    if wanted is None or "input" not in error:
        return str(error["msg"])
    if isinstance(error["input"], bytes | bytearray):  # a body FastAPI did not parse as JSON
        return f"should be {wanted} sent as JSON (Content-Type: application/json)"
    return f"should be {wanted}, not {json_kind(error['input'])}"
