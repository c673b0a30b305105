"""The body screen (api/body.py) at the ASGI level, no server: a body cut short by the client
never reaches a route, a whole one does."""

from __future__ import annotations

import asyncio
from typing import Any

from knotwork.api.body import BodyScreen
from tests.conftest import make_settings


def _scope(length: int) -> dict[str, Any]:
    return {
        "type": "http",
        "method": "PUT",
        "path": "/notes/Ann.md",
        "headers": [(b"content-type", b"text/markdown"), (b"content-length", str(length).encode())],
    }


def _through(messages: list[dict[str, Any]], length: int) -> tuple[list[bytes], list[Any]]:
    """What the app behind the screen received as its body, and what was sent back."""
    seen: list[bytes] = []
    sent: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        seen.append(body)

    queue = list(messages)

    async def receive() -> dict[str, Any]:
        return queue.pop(0)

    async def send(message: Any) -> None:
        sent.append(message)

    screen = BodyScreen(app, make_settings())
    asyncio.run(screen(_scope(length), receive, send))
    return seen, sent


def test_a_body_the_client_abandoned_never_reaches_the_route() -> None:
    whole = b"# Ann\n\nThe first half and the second half.\n"
    cut = [
        {"type": "http.request", "body": whole[:20], "more_body": True},
        {"type": "http.disconnect"},
    ]
    seen, sent = _through(cut, len(whole))
    assert seen == [] and sent == []  # nothing written, no one to answer


def test_a_whole_body_in_parts_reaches_the_route_whole() -> None:
    whole = b"# Ann\n\nThe first half and the second half.\n"
    parts = [
        {"type": "http.request", "body": whole[:20], "more_body": True},
        {"type": "http.request", "body": whole[20:], "more_body": False},
    ]
    seen, _ = _through(parts, len(whole))
    assert seen == [whole]
