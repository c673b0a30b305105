"""Request bodies: bounded before they are read, checked before a route sees them, and never
echoed back at length.

``BodyScreen`` refuses a body whose ``Content-Length`` is above the limit without reading it,
and counts the bytes of a body sent without one, stopping at the limit (413). The limit is
``KNOTWORK_MAX_NOTE_BYTES`` for ``PUT /notes/…`` (with room for its escapes when the note
comes as a JSON string: the route holds the decoded note to the limit) and
``KNOTWORK_API_MAX_BODY_BYTES`` for the rest. A body within it is checked as the API's own
decoder would not: JSON must be standard JSON (no ``NaN``/``Infinity``, no number too large
for a float, no lone surrogate in any string, no key twice in one object, at most
``MAX_DEPTH`` levels deep) and Markdown must be UTF-8. Each problem is a 422 shaped as
FastAPI's own validation errors, with a message that says what to send instead; in front of
the MCP app (``jsonrpc``), each refusal is a JSON-RPC error instead, as the SDK's transport
answers a body it cannot parse (400, parse error; 413, invalid request).

``validation_error`` renders FastAPI's 422s with every input longer than ``ECHO_LIMIT``
characters cut down, so a huge or hostile body is never sent back whole, and a value of another
JSON type worded by its field ("top_k should be an integer, not a string", ``api.strict``).
"""

from __future__ import annotations

import json
import math
from collections import deque
from typing import Any

from fastapi import Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from knotwork.api.strict import type_message
from knotwork.settings import Settings

MAX_DEPTH = 32
ECHO_LIMIT = 200
# JSON-RPC 2.0's codes (the spec's numbers; ``mcp.types`` names them, not imported by REST).
PARSE_ERROR, INVALID_REQUEST = -32700, -32600


class BodyProblem(ValueError):
    """A body that parses, or not, into something the API refuses; the message says why."""


def _reject_constant(name: str) -> float:
    raise BodyProblem(f"{name} is not a JSON number; send a finite number or null")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BodyProblem(f"the number {text[:40]} is too large; send a finite number")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose key appears twice is refused: the parser kept the last value, so
    ``{"top_k": 5, …, "top_k": 50}`` was answered as a request for 50, silently."""
    value: dict[str, Any] = {}
    for key, inner in pairs:
        if key in value:
            raise BodyProblem(f"the key {_short(key)!r} appears twice in one JSON object")
        value[key] = inner
    return value


def _walk(value: Any) -> None:
    """Depth and lone surrogates, iteratively (a hostile body must not exhaust the stack)."""
    stack: deque[tuple[Any, int]] = deque([(value, 1)])
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise BodyProblem(f"the JSON nests deeper than {MAX_DEPTH} levels")
        if isinstance(item, str):
            _valid_unicode(item)
        elif isinstance(item, dict):
            for key, inner in item.items():
                _valid_unicode(key)
                stack.append((inner, depth + 1))
        elif isinstance(item, list):
            stack.extend((inner, depth + 1) for inner in item)


def _valid_unicode(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        raise BodyProblem(
            f"a string holds a lone surrogate (\\u{code:04x}), which is not text; "
            "send valid Unicode"
        ) from exc


def check_json(raw: bytes) -> None:
    """Raise BodyProblem unless ``raw`` is standard JSON the API can take."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BodyProblem(f"the body is not UTF-8 (byte at offset {exc.start})") from exc
    try:
        value = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_float=_finite,
            object_pairs_hook=_unique_keys,
        )
    except RecursionError as exc:
        raise BodyProblem(f"the JSON nests deeper than {MAX_DEPTH} levels") from exc
    except BodyProblem:
        raise
    except ValueError as exc:
        raise BodyProblem(f"the body is not valid JSON: {str(exc)[:200]}") from exc
    _walk(value)


def check_markdown(raw: bytes) -> None:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start : exc.start + 1].hex()
        raise BodyProblem(
            f"the note is not valid UTF-8 (byte 0x{bad} at offset {exc.start}); convert it "
            "to UTF-8 and send it again (nothing was written)"
        ) from exc


def invalid_body(message: str) -> JSONResponse:
    """A 422 shaped as FastAPI's validation errors, so clients parse one shape."""
    return JSONResponse(
        {"detail": [{"type": "body_invalid", "loc": ["body"], "msg": message}]}, status_code=422
    )


def body_limit(settings: Settings, *, notes_in_json: bool = False) -> tuple[int, str]:
    """The largest body but a note PUT's, and the settings that make it: ``notes_in_json``
    (the MCP write tools carry a whole note as a JSON string) makes room for three times the
    note limit, what escaping non-ASCII text as ``\\uXXXX`` can make of it."""
    if notes_in_json:
        return (
            settings.api_max_body_bytes + 3 * settings.max_note_bytes,
            "KNOTWORK_API_MAX_BODY_BYTES + 3 * KNOTWORK_MAX_NOTE_BYTES",
        )
    return settings.api_max_body_bytes, "KNOTWORK_API_MAX_BODY_BYTES"


class BodyScreen:
    """ASGI middleware: the size limit, then the JSON and UTF-8 checks, then the app."""

    def __init__(
        self,
        app: ASGIApp,
        settings: Settings,
        *,
        notes_in_json: bool = False,
        jsonrpc: bool = False,
    ) -> None:
        """``notes_in_json``: bodies may carry a whole note as a JSON string (``body_limit``);
        ``jsonrpc``: refusals are JSON-RPC errors, for an MCP client to read as one."""
        self.app, self.jsonrpc = app, jsonrpc
        self.note_limit = settings.max_note_bytes
        self.note_json_limit = body_limit(settings, notes_in_json=True)
        self.limit, self.setting = body_limit(settings, notes_in_json=notes_in_json)

    def _limit(self, scope: Scope, kind: str) -> tuple[int, str]:
        if scope["method"] == "PUT" and scope["path"].startswith("/notes/"):
            if kind == "application/json":  # the note as a JSON string, escapes and all:
                # the route holds the decoded note to KNOTWORK_MAX_NOTE_BYTES (413)
                return self.note_json_limit
            return self.note_limit, "KNOTWORK_MAX_NOTE_BYTES"
        return self.limit, self.setting

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if "content-length" not in headers and "transfer-encoding" not in headers:
            await self.app(scope, receive, send)
            return
        kind = headers.get("content-type", "").partition(";")[0].strip().lower()
        limit, setting = self._limit(scope, kind)
        too_large = self._refusal(
            f"the body is larger than the limit of {limit} bytes ({setting})", too_large=True
        )
        declared = headers.get("content-length", "")
        if declared.strip().isdigit() and int(declared) > limit:
            await too_large(scope, receive, send)
            return
        body = bytearray()
        trailing: Message | None = None
        while True:
            message = await receive()
            if message["type"] != "http.request":
                trailing = message
                break
            body.extend(message.get("body", b""))
            if len(body) > limit:
                await too_large(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        if trailing is not None and trailing["type"] == "http.disconnect":
            # The client went before its body was whole: a note cut short must never be
            # written as if it were the note (there is no one left to answer).
            return
        try:
            if kind == "application/json" and body:
                check_json(bytes(body))
            elif kind == "text/markdown":
                check_markdown(bytes(body))
        except BodyProblem as exc:
            await self._refusal(str(exc))(scope, receive, send)
            return
        pending: deque[Message] = deque(
            [{"type": "http.request", "body": bytes(body), "more_body": False}]
        )
        if trailing is not None:
            pending.append(trailing)

        async def replay() -> Message:
            return pending.popleft() if pending else await receive()

        await self.app(scope, replay, send)

    def _refusal(self, message: str, *, too_large: bool = False) -> JSONResponse:
        """REST's 413 or 422; for the MCP app, a JSON-RPC error with no id (none was read)."""
        if self.jsonrpc:
            code = INVALID_REQUEST if too_large else PARSE_ERROR
            error = {"code": code, "message": message}
            body = {"jsonrpc": "2.0", "id": None, "error": error}
            return JSONResponse(body, status_code=413 if too_large else 400)
        if too_large:
            return JSONResponse({"detail": message}, status_code=413)
        return invalid_body(message)


def _short(value: Any) -> Any:
    """An echoed input as it was when its JSON is short and plain text; else the start of
    its JSON (non-ASCII escaped), marked as cut."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, default=str)
        text.encode("utf-8")  # a lone surrogate cannot be sent back as it is
    except ValueError:
        text = None
    if text is not None and len(text) <= ECHO_LIMIT:
        return json.loads(text)
    shown = json.dumps(value, ensure_ascii=True, default=str)
    if len(shown) <= ECHO_LIMIT:
        return shown
    return f"{shown[:ECHO_LIMIT]}… ({len(shown)} characters, cut)"


def _loc(part: Any) -> Any:
    return part if isinstance(part, int) else _short(str(part))


def _message(error: Any) -> str:
    """Pydantic's message; a value of another JSON type names its field, what the field
    wants and what came: "top_k should be an integer, not a string"."""
    said = type_message(error)
    if said == str(error["msg"]):
        return said
    field = ".".join(str(part) for part in error["loc"][1:]) or "the body"
    return f"{field} {said}"


async def validation_error(_: Request, exc: Exception) -> JSONResponse:
    """FastAPI's 422, with long or unprintable inputs (and names in ``loc``) cut down."""
    assert isinstance(exc, RequestValidationError)
    errors = []
    for error in exc.errors():
        shown: dict[str, Any] = {
            "type": error["type"],
            "loc": [_loc(part) for part in error["loc"]],
            "msg": _short(_message(error)),
        }
        # Raw bytes (a body of a type FastAPI does not parse) would come back as "b'…'".
        if "input" in error and not isinstance(error["input"], bytes | bytearray):
            shown["input"] = _short(error["input"])
        errors.append(shown)
    return JSONResponse({"detail": jsonable_encoder(errors)}, status_code=422)
